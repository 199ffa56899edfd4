// Redaction at ingestion: a trace's task, reasoning, output, feedback and metadata string values
// with personal data and secrets replaced (server/ace/redaction), before anything is stored or
// sent to a model; a unit id that is an email or phone number is stored as a keyed hash.
import { createHmac, randomBytes } from "node:crypto";
import {
  isRedactorEmpty,
  looksPersonal,
  redactText,
  redactValue,
  type RedactionCounts,
  type Redactor,
} from "@/server/ace/redaction/detectors";
import { redactorFor } from "@/server/ace/redaction/settings";
import { readOrInsertAppSetting } from "@/server/apikeys/repository";
import { getAuthSettings } from "@/server/auth/config";
import type { DbOrTx } from "@/server/db/client";
import { hasOwnRedaction, readSettings, settingsWithDefaults } from "@/server/playbooks/manage";
import type { TraceRedactions } from "./schemas";

/** The fields of a trace that redaction reads and rewrites. */
export interface RedactableTrace {
  task: string;
  reasoning: string;
  output: string;
  feedback: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** The trace with its findings replaced, and what was replaced where (null: nothing). */
export function redactTrace<T extends RedactableTrace>(trace: T, redactor: Redactor): { trace: T; redactions: TraceRedactions | null } {
  if (isRedactorEmpty(redactor)) return { trace, redactions: null };
  const counts: RedactionCounts = {};
  const fields: string[] = [];
  const text = (value: string, field: string) => {
    const redacted = redactText(value, redactor, counts);
    if (redacted !== value) fields.push(field);
    return redacted;
  };
  const redacted: T = {
    ...trace,
    task: text(trace.task, "task"),
    reasoning: text(trace.reasoning, "reasoning"),
    output: text(trace.output, "output"),
    feedback: redactValue(trace.feedback, redactor, counts, "feedback", fields) as Record<string, unknown>,
    metadata: redactValue(trace.metadata, redactor, counts, "metadata", fields) as Record<string, unknown>,
  };
  return fields.length === 0 ? { trace, redactions: null } : { trace: redacted, redactions: { counts, fields } };
}

// ---- Settings: the playbook's own, else the studio default ------------------------------------

/**
 * Per playbook id, the redactor of its own settings or of the studio default, from the studio's
 * default settings as read with the playbooks (STUDIO_DEFAULT_KEYS, by key): one redactor for all
 * the playbooks that use the default.
 */
export function redactorsOf(playbooks: { id: string; settings: unknown }[], studio: ReadonlyMap<string, unknown>): Map<string, Redactor> {
  let studioRedactor: Redactor | undefined;
  return new Map(
    playbooks.map((row) => {
      if (hasOwnRedaction(row.settings)) return [row.id, redactorFor(readSettings(row.settings).redaction)];
      studioRedactor ??= redactorFor(settingsWithDefaults(row.settings, studio).redaction);
      return [row.id, studioRedactor];
    }),
  );
}

// ---- Unit ids ----------------------------------------------------------------------------------

/** Where the generated studio key is kept when ACE_SECRET is unset (the API keys' HMAC key). */
const STUDIO_KEY_SETTING = "auth.apiKeyHmacKey";
export const HASHED_UNIT_PREFIX = "hmac:";

const unitKeys = new WeakMap<object, Promise<Buffer>>();

/**
 * HMAC-SHA-256 key for unit ids, derived from the studio secret (ACE_SECRET, or the key generated
 * once and kept in the database), so one id hashes the same on every instance and across restarts.
 */
function unitIdKey(db: DbOrTx): Promise<Buffer> {
  const secret = getAuthSettings().secret;
  const derive = (studioKey: string) => createHmac("sha256", studioKey).update("ace-studio trace unit id").digest();
  if (secret) return Promise.resolve(derive(secret));
  let key = unitKeys.get(db);
  if (!key) {
    key = readOrInsertAppSetting(db, STUDIO_KEY_SETTING, randomBytes(32).toString("base64url")).then(derive);
    unitKeys.set(db, key);
    key.catch(() => unitKeys.delete(db));
  }
  return key;
}

/**
 * How each personal unit id of the batch is stored: `hmac:` and 64 hex digits. Other ids are kept
 * as sent. Assignment still hashes the id the agent sent; the stored one only tells units apart.
 */
export async function storedUnitIds(db: DbOrTx, unitIds: (string | null | undefined)[]): Promise<Map<string, string>> {
  const personal = [...new Set(unitIds.filter((id): id is string => !!id && looksPersonal(id)))];
  if (personal.length === 0) return new Map();
  const key = await unitIdKey(db);
  return new Map(personal.map((id) => [id, HASHED_UNIT_PREFIX + createHmac("sha256", key).update(id).digest("hex")]));
}
