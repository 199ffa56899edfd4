"use client";
// The three retention fields (traces, rejected deltas, failed runs, in days), checked in the browser
// with the server's own schema so a 0 is refused here with the same words, and the footer of the
// two forms that hold them (the studio default and a playbook's own).
import { useId } from "react";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/components/ui/errors";
import { Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { RETENTION_KINDS, retentionSettingsSchema, type RetentionKind, type RetentionSettings } from "@/server/retention/schemas";

/** The fields as typed: text, so an empty or half-typed value is shown as typed and refused, not replaced. */
export type RetentionDraft = Record<RetentionKind, string>;

const FIELDS: Record<RetentionKind, { label: string; help: string }> = {
  traces: { label: "Traces", help: "By the trace's timestamp." },
  rejectedDeltas: { label: "Rejected deltas", help: "From their rejection." },
  failedRuns: { label: "Failed runs", help: "From their start." },
};

export const draftOf = (settings: RetentionSettings): RetentionDraft => ({
  traces: String(settings.traces),
  rejectedDeltas: String(settings.rejectedDeltas),
  failedRuns: String(settings.failedRuns),
});

/** The settings a draft describes, or the first reason it is refused. */
export function parseDraft(draft: RetentionDraft): { settings: RetentionSettings; problem: null } | { settings: null; problem: string } {
  const numbers = Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, draft[kind].trim() === "" ? Number.NaN : Number(draft[kind])]));
  const parsed = retentionSettingsSchema.safeParse(numbers);
  if (parsed.success) return { settings: parsed.data, problem: null };
  return { settings: null, problem: parsed.error.issues[0]?.message ?? "Enter a number of days." };
}

export function RetentionFields({
  draft,
  onChange,
  disabled,
}: {
  draft: RetentionDraft;
  onChange: (draft: RetentionDraft) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="grid gap-3 sm:grid-cols-3">
      {RETENTION_KINDS.map((kind) => (
        <div key={kind} className="flex min-w-0 flex-col gap-1">
          <label htmlFor={`${id}-${kind}`} className="text-sm font-medium text-ink">
            {FIELDS[kind].label}
          </label>
          <div className="flex items-center gap-2">
            <Input
              id={`${id}-${kind}`}
              inputMode="numeric"
              className="w-24"
              disabled={disabled}
              value={draft[kind]}
              aria-describedby={`${id}-${kind}-help`}
              onChange={(event) => onChange({ ...draft, [kind]: event.target.value })}
            />
            <span className="text-sm text-ink-muted">days</span>
          </div>
          <p id={`${id}-${kind}-help`} className="text-[13px] text-ink-muted">
            {FIELDS[kind].help}
          </p>
        </div>
      ))}
    </div>
  );
}

/** "1,204 traces · 3 rejected deltas" for counts of what a run removed (or will), "nothing" when all are 0. */
export function describeRemoved(counts: {
  traces: number;
  rejectedDeltas: number;
  failedRuns: number;
  exposures: number;
  succeededRuns: number;
}): string {
  const parts = [
    [counts.traces, "trace", "traces"],
    [counts.rejectedDeltas, "rejected delta", "rejected deltas"],
    [counts.failedRuns, "failed run", "failed runs"],
    [counts.succeededRuns, "succeeded run", "succeeded runs"],
    [counts.exposures, "experiment exposure", "experiment exposures"],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, one, many]) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`);
  return said.length === 0 ? "nothing" : said.join(" · ");
}

/** Under a retention form: what is wrong with the days typed, why saving failed, and Save. */
export function RetentionFormFooter({
  problem,
  saveError,
  saving,
  canSave,
  permission,
  label,
}: {
  problem: string | null;
  saveError: unknown;
  saving: boolean;
  /** Changed, valid and allowed: Save is enabled. */
  canSave: boolean;
  permission: { allowed: boolean; reason: string | null };
  label: string;
}) {
  return (
    <>
      {problem ? (
        <p role="alert" className="text-[13px] text-rose-700">
          {problem}
        </p>
      ) : null}
      {saveError ? (
        <Notice tone="danger" title="Retention was not saved">
          {errorMessage(saveError)}
        </Notice>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" variant="primary" size="sm" disabled={!canSave || saving}>
          {saving ? "Saving…" : label}
        </Button>
        {!permission.allowed ? <span className="text-[13px] text-ink-muted">{permission.reason}</span> : null}
      </div>
    </>
  );
}
