// What a DeltaOperation row's payload and originalPayload columns hold (server/ace/delta/types.ts),
// checked with zod when read back, so that a corrupt row is reported with its delta and position
// instead of failing somewhere inside the engine.
//
// The shapes are structural on purpose, not the wire schemas of schemas.ts: operations that the
// server makes itself (pruning, proposals from a file) never pass those limits (100 merged ids, 200
// characters of section name, a non-empty reason), and a stored delta must stay readable when the
// limits change. Objects are loose: a field added to an operation later is kept as stored, not dropped.
import { z } from "zod";
import type { DeltaOperation } from "@/server/ace/delta";
import { AppError } from "@/server/errors/app-error";

const add = z.looseObject({
  type: z.literal("add"),
  section: z.string(),
  content: z.string(),
  helpful: z.number().optional(),
  harmful: z.number().optional(),
  neutral: z.number().optional(),
});
const update = z.looseObject({
  type: z.literal("update"),
  bulletId: z.string(),
  content: z.string().optional(),
  section: z.string().optional(),
  position: z.number().optional(),
});
const remove = z.looseObject({ type: z.literal("remove"), bulletId: z.string(), reason: z.string() });
const restore = z.looseObject({ type: z.literal("restore"), bulletId: z.string() });
const merge = z.looseObject({
  type: z.literal("merge"),
  bulletIds: z.array(z.string()),
  into: z.string(),
  content: z.string(),
  reason: z.string().optional(),
});
const tag = z.looseObject({
  type: z.literal("tag"),
  bulletId: z.string(),
  helpful: z.number().optional(),
  harmful: z.number().optional(),
  neutral: z.number().optional(),
});
const pin = z.looseObject({ type: z.literal("pin"), bulletId: z.string() });
const unpin = z.looseObject({ type: z.literal("unpin"), bulletId: z.string() });
const addSection = z.looseObject({ type: z.literal("add_section"), name: z.string(), slug: z.string().optional() });
const renameSection = z.looseObject({ type: z.literal("rename_section"), section: z.string(), name: z.string() });
const moveSection = z.looseObject({ type: z.literal("move_section"), section: z.string(), position: z.number() });
const removeSection = z.looseObject({ type: z.literal("remove_section"), section: z.string() });

const storedOperationSchema = z.discriminatedUnion("type", [
  add,
  update,
  remove,
  restore,
  merge,
  tag,
  pin,
  unpin,
  addSection,
  renameSection,
  moveSection,
  removeSection,
]) satisfies z.ZodType<DeltaOperation>;

// Every operation type has its shape here: a new type fails the type check until it does.
type StoredType = z.infer<typeof storedOperationSchema>["type"];
const everyTypeStored: [DeltaOperation["type"]] extends [StoredType] ? true : false = true;
void everyTypeStored;

/** Where a stored operation comes from, for the message when it cannot be read. */
export interface StoredOperationPlace {
  deltaId?: string;
  /** 0-based, as stored; the message counts from 1, as the review page does. */
  position: number;
  column?: "payload" | "originalPayload";
}

/** The stored operation, or an INTERNAL error that names the delta, the operation and what is wrong. */
export function readStoredOperation(stored: unknown, place: StoredOperationPlace): DeltaOperation {
  const parsed = storedOperationSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const what = issue ? `${issue.path.join(".") || "the operation"}: ${issue.message}` : "not an operation";
  const delta = place.deltaId === undefined ? "a delta" : `delta ${place.deltaId}`;
  const column = place.column === "originalPayload" ? "an original payload (as proposed, before a reviewer's edit)" : "a stored payload";
  throw new AppError(
    "INTERNAL",
    `Operation ${place.position + 1} of ${delta} has ${column} that cannot be read (${what}). ` +
      "The database row was changed outside ACE Studio; restore it from a backup or reject the delta.",
    { details: { deltaId: place.deltaId ?? null, position: place.position } },
  );
}
