"use client";
// One operation of a delta, shown as what it would do to the current playbook: a word-level diff
// of the content, counters before → after, the section it moves between, and what was found.
import { useMutation } from "@tanstack/react-query";
import { ArrowRight, Pencil, X } from "lucide-react";
import type { ReactNode } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { cn } from "@/components/ui/cn";
import { TextDiff } from "@/components/ui/text-diff";
import { errorMessage } from "@/components/ui/errors";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import type { Counters, DeltaOperation, MergeOperation, OperationView } from "@/server/deltas/schemas";
import { OPERATION_LABELS, startingCounters } from "@/components/shared/delta-labels";
import { OperationFindings } from "@/components/shared/operation-findings";
import { isEditable, OperationForm, toOperationInput } from "./operation-form";

export function operationElementId(operationId: string): string {
  return `operation-${operationId}`;
}

export function OperationCard({
  deltaId,
  playbookId,
  op,
  canDecide,
  included,
  onIncludedChange,
  editing,
  onEditingChange,
  sections,
  onReject,
  onUseSuggestion,
  suggestionPending,
  onDrop,
  operationAnchor,
}: {
  deltaId: string;
  playbookId: string;
  op: OperationView;
  /** The delta is pending: its pending operations can be chosen, edited, rejected. */
  canDecide: boolean;
  included: boolean;
  onIncludedChange: (operationId: string, included: boolean) => void;
  editing: boolean;
  onEditingChange: (operationId: string | null) => void;
  sections: readonly string[];
  onReject: (operationId: string) => void;
  onUseSuggestion: (op: OperationView, suggestion: MergeOperation) => void;
  suggestionPending: boolean;
  /** Rejects this one operation with a reason (a duplicate of another operation). */
  onDrop: (operationId: string, reason: string) => void;
  operationAnchor: (position: number) => string | null;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const open = canDecide && op.status === "pending";
  const number = op.position + 1;

  const update = useMutation(
    trpc.delta.updateOperation.mutationOptions({
      onSuccess: async (outcome) => {
        toast.success(outcome.message);
        onEditingChange(null);
        await invalidate();
      },
    }),
  );

  return (
    <article
      id={operationElementId(op.id)}
      aria-labelledby={`${operationElementId(op.id)}-title`}
      className={cn(
        "scroll-mt-20 rounded-lg border bg-surface transition-colors",
        open && !included ? "border-dashed border-line-strong bg-subtle/40" : "border-line",
      )}
    >
      <header className="flex items-start gap-3 px-4 pt-3">
        {open ? (
          <Checkbox
            className="mt-0.5"
            aria-label={`Include operation ${number} in the approval`}
            checked={included}
            onChange={(event) => onIncludedChange(op.id, event.target.checked)}
          />
        ) : null}
        <div className="min-w-0 flex-1">
          <h4 id={`${operationElementId(op.id)}-title`} className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
            <span className="font-mono text-xs text-ink-faint">#{number}</span>
            <Badge tone="neutral">{OPERATION_LABELS[op.type]}</Badge>
            <span className="min-w-0 break-words font-medium text-ink">{op.preview.summary}</span>
          </h4>
          <div className="mt-1 flex flex-wrap gap-1.5">
            {op.status === "approved" ? <Badge tone="green">Approved</Badge> : null}
            {op.status === "rejected" ? <Badge tone="red">Rejected</Badge> : null}
            {open && !included ? <Badge tone="gray">Left out: rejected on approval</Badge> : null}
            {op.editedBy ? <Badge tone="accent">Edited by {op.editedBy}</Badge> : null}
          </div>
        </div>
        {open && !editing ? (
          <div className="flex shrink-0 items-center gap-1">
            {isEditable(op.payload) ? (
              <Button size="sm" variant="ghost" onClick={() => onEditingChange(op.id)} aria-label={`Edit operation ${number}`}>
                <Pencil aria-hidden /> <span className="hidden sm:inline">Edit</span>
              </Button>
            ) : null}
            <Button size="sm" variant="ghost" onClick={() => onReject(op.id)} aria-label={`Reject operation ${number}`}>
              <X aria-hidden /> <span className="hidden sm:inline">Reject</span>
            </Button>
          </div>
        ) : null}
      </header>

      <div className="flex flex-col gap-3 px-4 pb-4 pt-3">
        {editing && open ? (
          <OperationForm
            operation={op.payload}
            current={op.targets[0]}
            sections={sections}
            pending={update.isPending}
            error={update.isError ? errorMessage(update.error) : null}
            onCancel={() => {
              update.reset();
              onEditingChange(null);
            }}
            onSave={(operation) => update.mutate({ deltaId, operationId: op.id, operation: toOperationInput(operation) })}
          />
        ) : (
          <OperationPreview op={op} />
        )}
        <OperationFindings
          findings={op.status === "rejected" ? [] : op.findings}
          conflicts={op.conflicts}
          playbookId={playbookId}
          onUseSuggestion={open ? (suggestion) => onUseSuggestion(op, suggestion) : null}
          suggestionPending={suggestionPending}
          onDrop={open ? (reason) => onDrop(op.id, reason) : null}
          operationAnchor={operationAnchor}
        />
        {op.rationale ? (
          <p className="whitespace-pre-wrap break-words text-[13px] leading-relaxed text-ink-muted">
            <span className="font-medium text-ink-faint">Why: </span>
            {op.rationale}
          </p>
        ) : null}
        {op.originalPayload ? <OriginalProposal payload={op.originalPayload} /> : null}
      </div>
    </article>
  );
}

function OperationPreview({ op }: { op: OperationView }) {
  const { preview } = op;
  const target = op.targets[0];
  const sources = op.type === "merge" ? op.targets.filter((t) => t.externalId !== target?.externalId) : [];
  const startsAt = startingCounters(op.payload);
  return (
    <>
      {preview.section && (preview.section.from || preview.section.to) && preview.section.from !== preview.section.to ? (
        <Line label={preview.section.from === null ? (op.type === "add_section" ? "New section" : "Into section") : "Section"}>
          {preview.section.from ? <span className="text-ink-muted">{preview.section.from}</span> : null}
          {preview.section.from && preview.section.to ? <ArrowRight aria-label="to" className="size-3.5 text-ink-faint" /> : null}
          {preview.section.to ? <span className="font-medium text-ink">{preview.section.to}</span> : null}
        </Line>
      ) : null}
      {preview.content ? (
        <div className="rounded-md border border-line bg-subtle/50 px-3 py-2.5">
          <TextDiff segments={preview.content.segments} />
        </div>
      ) : target && op.type !== "merge" ? (
        // Nothing in the text changes (a move, counters): the bullet as it reads now, for context.
        <div className="rounded-md border border-line bg-subtle/30 px-3 py-2.5">
          <p className="mb-1 text-xs font-medium text-ink-faint">Current text of [{target.externalId}]</p>
          <p className="line-clamp-4 whitespace-pre-wrap break-words text-sm leading-relaxed text-ink-muted">{target.content}</p>
        </div>
      ) : null}
      {startsAt ? (
        <Line label="Starts at">
          <span className="font-medium tabular-nums text-ink">{startsAt}</span>
        </Line>
      ) : null}
      {preview.counters && COUNTERS.some((key) => preview.counters?.before[key] !== preview.counters?.after[key]) ? (
        <CounterChange before={preview.counters.before} after={preview.counters.after} />
      ) : null}
      {sources.length > 0 ? (
        <div className="flex flex-col gap-1.5">
          <p className="text-xs font-medium text-ink-faint">Archived into [{target?.externalId}]:</p>
          {sources.map((source) => (
            <p key={source.externalId} className="line-clamp-3 text-[13px] leading-relaxed text-ink-muted">
              <span className="font-mono text-xs text-ink-faint">[{source.externalId}] </span>
              {source.content}
            </p>
          ))}
        </div>
      ) : null}
    </>
  );
}

function Line({ label, children }: { label: string; children: ReactNode }) {
  return (
    <p className="flex flex-wrap items-center gap-1.5 text-[13px]">
      <span className="text-ink-faint">{label}:</span>
      {children}
    </p>
  );
}

const COUNTERS = ["helpful", "harmful", "neutral"] as const;

export function CounterChange({ before, after }: { before: Counters; after: Counters }) {
  return (
    <dl className="flex flex-wrap gap-x-5 gap-y-1 text-[13px]">
      {COUNTERS.map((key) => {
        const change = after[key] - before[key];
        return (
          <div key={key} className="flex items-baseline gap-1.5">
            <dt className="text-ink-faint">{key}</dt>
            <dd className="tabular-nums text-ink">
              {before[key]} <span aria-label="becomes">→</span> <span className="font-medium">{after[key]}</span>
              {change !== 0 ? (
                <span className={cn("ml-1 text-xs font-medium", change > 0 ? "text-emerald-700" : "text-rose-700")}>
                  ({change > 0 ? `+${change}` : `−${Math.abs(change)}`})
                </span>
              ) : null}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/** The reviewer's edit replaced this proposal; keep it readable for whoever looks later. */
function OriginalProposal({ payload }: { payload: DeltaOperation }) {
  const text = "content" in payload && typeof payload.content === "string" ? payload.content : JSON.stringify(payload);
  return (
    <details className="text-[13px] text-ink-muted">
      <summary className="cursor-pointer select-none text-xs font-medium text-ink-faint hover:text-ink">
        As proposed, before the edit
      </summary>
      <p className="mt-1.5 whitespace-pre-wrap break-words rounded-md border border-line bg-subtle/40 px-3 py-2">{text}</p>
    </details>
  );
}
