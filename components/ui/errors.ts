// Reading tRPC errors for display: the server writes messages for people, and bad input carries
// zod's flattened field errors (see server/trpc/init.ts errorFormatter).
import { TRPCClientError } from "@trpc/client";
import { asSentence } from "@/server/deltas/schemas";

interface FlattenedZodError {
  formErrors: string[];
  fieldErrors: Record<string, string[] | undefined>;
}

function zodErrorOf(error: unknown): FlattenedZodError | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data: unknown = error.data;
  if (typeof data !== "object" || data === null || !("zodError" in data)) return null;
  const zodError = (data as { zodError: unknown }).zodError;
  if (typeof zodError !== "object" || zodError === null || !("fieldErrors" in zodError)) return null;
  return zodError as FlattenedZodError;
}

/** The first message per field, keyed by the input's top-level field name. */
export function fieldErrors(error: unknown): Record<string, string> {
  const zod = zodErrorOf(error);
  const out: Record<string, string> = {};
  if (!zod) return out;
  for (const [field, messages] of Object.entries(zod.fieldErrors)) {
    if (messages?.[0]) out[field] = messages[0];
  }
  return out;
}

/**
 * A form's errors: each field's first message (shown under the field), and the error itself when
 * no field shows it (`unshown`, for a notice above the buttons); null when there is none.
 */
export function formErrors(error: unknown): { fields: Record<string, string>; unshown: unknown } {
  const fields = fieldErrors(error);
  return { fields, unshown: Object.keys(fields).length === 0 ? error : null };
}

/** A sentence to show for any error. Zod errors list their field messages instead of the raw JSON. */
export function errorMessage(error: unknown): string {
  const zod = zodErrorOf(error);
  if (zod) {
    const messages = [...zod.formErrors, ...Object.values(zod.fieldErrors).flatMap((m) => m ?? [])];
    // One sentence each, so two messages never run together.
    if (messages.length) return [...new Set(messages)].map(asSentence).join(" ");
  }
  if (error instanceof Error && error.message) {
    // fetch failures surface as "Failed to fetch": say what that means here.
    if (error.message === "Failed to fetch") return "The server could not be reached. Check that ACE Studio is running, then try again.";
    return error.message;
  }
  return "Something went wrong. Try again.";
}

export function isNotFound(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const data: unknown = error.data;
  return typeof data === "object" && data !== null && "code" in data && (data as { code: unknown }).code === "NOT_FOUND";
}

function errorData(error: unknown): Record<string, unknown> | null {
  if (!(error instanceof TRPCClientError)) return null;
  const data: unknown = error.data;
  return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : null;
}

/** CONFLICT: someone else changed the playbook (or decided the delta) first; nothing was written. */
export function isConflict(error: unknown): boolean {
  return errorData(error)?.code === "CONFLICT";
}
