// What the retention procedures take and return; the one file of server/retention client code may import.
import { z } from "zod";
import { retentionSettingsSchema } from "../ace/retention/settings";

export { retentionSettingsSchema, RETENTION_KINDS } from "../ace/retention/settings";
export type { RetentionSettings, RetentionKind } from "../ace/retention/settings";

/** What a run removes (or the preview says it would): the settings' kinds and the exposures of archived experiments. */
const removedCountsSchema = z.object({
  traces: z.number().int(),
  rejectedDeltas: z.number().int(),
  failedRuns: z.number().int(),
  exposures: z.number().int(),
  /** Succeeded runs whose traces are gone (with the traces' days). */
  succeededRuns: z.number().int(),
});
export type RemovedCounts = z.infer<typeof removedCountsSchema>;

const playbookRemovedSchema = removedCountsSchema.extend({ playbookId: z.string(), name: z.string() });

const previewRowSchema = playbookRemovedSchema.extend({
  /** The days that apply to the playbook, and whether they are its own (else the studio default's). */
  retention: retentionSettingsSchema,
  ownRetention: z.boolean(),
});
export type PreviewRow = z.infer<typeof previewRowSchema>;

export const retentionPreviewSchema = z.object({
  /** When the counts were taken: a run at this instant would remove exactly these. */
  at: z.date(),
  totals: removedCountsSchema,
  playbooks: z.array(previewRowSchema),
});
export type RetentionPreview = z.infer<typeof retentionPreviewSchema>;

export const retentionRunSchema = removedCountsSchema.extend({
  id: z.string(),
  /** "schedule" (the daily job) or "manual" (an admin's Run now). */
  trigger: z.string(),
  startedAt: z.date(),
  finishedAt: z.date().nullable(),
  byPlaybook: z.array(playbookRemovedSchema),
  error: z.string().nullable(),
});
export type RetentionRunResult = z.infer<typeof retentionRunSchema>;

export const retentionStatusSchema = z.object({
  studioDefault: retentionSettingsSchema,
  lastRun: retentionRunSchema.nullable(),
  /** When the daily job runs next; null when none is queued (no worker on this studio). */
  nextRunAt: z.date().nullable(),
});
export type RetentionStatus = z.infer<typeof retentionStatusSchema>;
