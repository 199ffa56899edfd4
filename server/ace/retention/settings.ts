// How long a playbook keeps what it no longer needs, in whole days: traces (by their timestamp),
// rejected deltas (from their rejection) and failed runs (from their creation). Applied deltas and
// versions are the history and are kept. Validated here so the settings forms, tRPC and the job agree.
import { z } from "zod";

export const RETENTION_KINDS = ["traces", "rejectedDeltas", "failedRuns"] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

const RETENTION_LABELS: Record<RetentionKind, string> = {
  traces: "traces",
  rejectedDeltas: "rejected deltas",
  failedRuns: "failed runs",
};

/** A century: longer is "keep", which a large number says well enough. */
const MAX_RETENTION_DAYS = 36_500;

function daysSchema(kind: RetentionKind) {
  const label = RETENTION_LABELS[kind];
  return z
    .number({ error: `Retention of ${label}: a number of days (at least 1).` })
    .refine((days) => Number.isInteger(days), { message: `Retention of ${label}: a whole number of days, such as 30.` })
    .refine((days) => days >= 1, {
      message: `Retention of ${label} must be at least 1 day: 0 or less would delete them as soon as they arrive. To keep them longer, enter more days.`,
    })
    .refine((days) => days <= MAX_RETENTION_DAYS, {
      message: `Retention of ${label}: at most ${MAX_RETENTION_DAYS.toLocaleString("en")} days (100 years).`,
    });
}

export const retentionSettingsSchema = z.object({
  traces: daysSchema("traces").default(30),
  rejectedDeltas: daysSchema("rejectedDeltas").default(90),
  failedRuns: daysSchema("failedRuns").default(7),
});
export type RetentionSettings = z.infer<typeof retentionSettingsSchema>;

/** A change: only the kinds sent. */
export const retentionSettingsPatchSchema = z.strictObject({
  traces: daysSchema("traces").optional(),
  rejectedDeltas: daysSchema("rejectedDeltas").optional(),
  failedRuns: daysSchema("failedRuns").optional(),
});

const DAY_MS = 86_400_000;

/** Per kind, the instant before which rows have expired at `now`. */
export function retentionCutoffs(settings: RetentionSettings, now: Date): Record<RetentionKind, Date> {
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  return { traces: before(settings.traces), rejectedDeltas: before(settings.rejectedDeltas), failedRuns: before(settings.failedRuns) };
}

/** The next daily run at `hourUtc`:00 UTC strictly after `now`. */
export function nextDailyRun(now: Date, hourUtc: number): Date {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hourUtc));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}
