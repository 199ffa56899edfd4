// The answer of GET /api/v1/health (server/http/health.ts), and its OpenAPI schema.
import { z } from "zod";

/** How long the database may take before an instance counts as unavailable. */
export const HEALTH_TIMEOUT_MS = 3_000;
/** A check this recent answers later probes too: a flood of them costs one query a second. */
export const HEALTH_REUSE_MS = 1_000;

const publicCheckSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("ok"), latencyMs: z.number().describe("The database's round trip, in milliseconds.") }),
  z.object({ status: z.literal("failed"), reason: z.string().describe("What failed, for a person; the server's log has the detail.") }),
]);
export type PublicCheck = z.infer<typeof publicCheckSchema>;

const storageCheckSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("ok") }),
  z.object({
    status: z.literal("full"),
    reason: z.string().describe("What failed, for a person."),
    since: z.iso.datetime().describe("When a write last failed on a full disk (ISO 8601, UTC)."),
  }),
]);
export type StorageCheck = z.infer<typeof storageCheckSchema>;

/** The answer of GET /api/v1/health (its OpenAPI schema too). */
export const healthSchema = z.object({
  status: z
    .enum(["ok", "degraded", "unavailable"])
    .describe(
      "ok: send this instance requests (HTTP 200). degraded: it answers (HTTP 200), but writes failed on a full disk in the last 10 minutes: free disk space. unavailable: do not send it requests (HTTP 503).",
    ),
  checks: z.object({
    database: publicCheckSchema,
    storage: storageCheckSchema.describe("full: this instance saw a write fail on a full disk in the last 10 minutes."),
  }),
  uptimeSeconds: z.number().int().describe("Seconds since this server process started."),
});
export type Health = z.infer<typeof healthSchema>;
