"use client";
// The right column of the queue: one delta, its operations, and the decision. Approve takes the
// checked operations (the unchecked ones are rejected with it); a conflict leaves everything as
// it was and says so.
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { ArrowLeft } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { cn } from "@/components/ui/cn";
import { Notice } from "@/components/ui/notice";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { LoadingStatus, Skeleton, Skeletons } from "@/components/ui/skeleton";
import { useShortcuts } from "@/components/ui/use-shortcuts";
import { errorMessage, isConflict, isNotFound } from "@/components/ui/errors";
import { plural } from "@/components/ui/format";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import type { DeltaView, OperationView } from "@/server/deltas/schemas";
import { OPERATION_LABELS } from "@/components/shared/delta-labels";
import { approvalBlocker, DecisionBar } from "./decision-bar";
import { ConflictNotice, StaleNotice } from "./delta-notices";
import { DeltaFacts, DeltaHeading } from "./delta-summary";
import { operationElementId, OperationCard } from "./operation-card";
import { isEditable } from "./operation-form";
import { useReplaceWithMerge } from "./use-replace-with-merge";
import { useUndoToast } from "@/components/shared/use-undo";

/** Approving more operations than this with the `a` key asks first: one key press is easy to make by mistake. */
export const CONFIRM_KEY_APPROVAL_OVER = 5;

export function DeltaDetail({
  deltaId,
  showPlaybook,
  onDecided,
  onSelect,
  onBack,
}: {
  deltaId: string;
  showPlaybook: boolean;
  /** After an approval or rejection: move on to the next delta. */
  onDecided: () => void;
  onSelect: (deltaId: string) => void;
  /** Phones: back to the list. */
  onBack: () => void;
}) {
  const trpc = useTRPC();
  // While the next delta loads (j/k), keep the last one on screen, dimmed, instead of a blank panel.
  const query = useQuery({ ...trpc.delta.get.queryOptions({ deltaId }), placeholderData: keepPreviousData });

  if (query.isPending) return <DeltaDetailSkeleton />;
  if (query.isError && !query.data) {
    return (
      <Notice tone="danger" title="This delta could not be loaded">
        {isNotFound(query.error) ? "It does not exist (any more). Pick another one from the list." : errorMessage(query.error)}
      </Notice>
    );
  }
  return (
    <DeltaReview
      // A new delta starts with its own choices: every operation checked, nothing being edited.
      key={query.data.id}
      delta={query.data}
      loading={query.isPlaceholderData}
      showPlaybook={showPlaybook}
      onDecided={onDecided}
      onSelect={onSelect}
      onBack={onBack}
    />
  );
}

function DeltaReview({
  delta,
  loading,
  showPlaybook,
  onDecided,
  onSelect,
  onBack,
}: {
  delta: DeltaView;
  loading: boolean;
  showPlaybook: boolean;
  onDecided: () => void;
  onSelect: (deltaId: string) => void;
  onBack: () => void;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const headingId = useId();
  const canDecide = delta.status === "pending" && !loading;
  const pendingOps = delta.operations.filter((op) => op.status === "pending");
  const [included, setIncluded] = useState<ReadonlySet<string>>(() => new Set(pendingOps.map((op) => op.id)));
  // An operation that waits again (its decision undone while this delta was on screen, or read from
  // the cache as decided) starts checked, as on a newly opened delta; choices made on the others stay.
  const pendingIds = pendingOps.map((op) => op.id).join(" ");
  const [pendingBefore, setPendingBefore] = useState(pendingIds);
  if (pendingBefore !== pendingIds) {
    setPendingBefore(pendingIds);
    const before = new Set(pendingBefore.split(" "));
    const returned = pendingOps.filter((op) => !before.has(op.id)).map((op) => op.id);
    if (returned.length > 0) setIncluded((previous) => new Set([...previous, ...returned]));
  }
  const [editing, setEditing] = useState<string | null>(null);
  /** The reject dialog: for the whole delta (null) or one operation. */
  const [rejecting, setRejecting] = useState<{ operationId: string | null } | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const merge = useReplaceWithMerge(delta, onSelect);
  const offerUndo = useUndoToast();
  const articleRef = useRef<HTMLElement>(null);
  // Stale on arrival, or only since it was opened (the queue polls): the latter is said so.
  const [staleOnArrival] = useState(delta.flags.stale);

  useEffect(() => {
    // A newly opened delta starts at its top, wherever the last one was scrolled to (after an approval: its foot).
    const article = articleRef.current;
    if (article && article.getBoundingClientRect().top < 0) article.scrollIntoView({ block: "start" });
  }, []);

  const sections = useQuery(trpc.playbook.get.queryOptions({ playbookId: delta.playbookId })).data?.sections ?? [];
  const sectionNames = [...sections].sort((a, b) => a.position - b.position).map((s) => s.name);

  const chosen = pendingOps.filter((op) => included.has(op.id));
  const blocker = approvalBlocker({ stale: delta.flags.stale, chosen, pendingCount: pendingOps.length });

  async function onConflict(error: unknown) {
    if (!isConflict(error)) return;
    setConflict(errorMessage(error));
    // Keep this delta open while the queue refreshes: the message stays until dismissed.
    onSelect(delta.id);
    // Show the playbook and the delta as they are now; the choices made here stay as they were.
    await invalidate();
  }

  const approve = useMutation(
    trpc.delta.approve.mutationOptions({
      onSuccess: async (outcome) => {
        const warnings = outcome.findings.filter((f) => f.severity === "warning").length;
        offerUndo(outcome.message, delta.id, {
          description: warnings ? `${plural(warnings, "warning")} noted in the history.` : undefined,
          onUndone: () => onSelect(delta.id),
        });
        await invalidate();
        onDecided();
      },
      onError: onConflict,
    }),
  );
  const reject = useMutation(
    trpc.delta.reject.mutationOptions({
      onSuccess: async (outcome) => {
        if (outcome.status === "rejected") offerUndo(outcome.message, delta.id, { onUndone: () => onSelect(delta.id) });
        else toast.success(outcome.message);
        setRejecting(null);
        await invalidate();
        if (outcome.status === "rejected") onDecided();
      },
      onError: onConflict,
    }),
  );
  const rebase = useMutation(
    trpc.delta.rebase.mutationOptions({
      onSuccess: async (outcome) => {
        if (outcome.stale) toast.warning(outcome.message);
        else toast.success(outcome.message);
        await invalidate();
      },
      onError: onConflict,
    }),
  );

  function runApprove() {
    if (!canDecide || approve.isPending || blocker !== null) return;
    setConfirming(false);
    setConflict(null);
    approve.mutate({
      deltaId: delta.id,
      ...(chosen.length < pendingOps.length ? { operationIds: chosen.map((op) => op.id) } : {}),
    });
  }

  function startEdit() {
    const first = pendingOps.find((op) => isEditable(op.payload));
    if (!canDecide || !first) return;
    setEditing(first.id);
    document.getElementById(operationElementId(first.id))?.scrollIntoView({ block: "nearest" });
  }

  /** The `a` key: many operations at once are confirmed first. */
  function keyApprove() {
    if (!canDecide || approve.isPending || blocker !== null) return;
    if (chosen.length > CONFIRM_KEY_APPROVAL_OVER) setConfirming(true);
    else runApprove();
  }

  const openReject = () => canDecide && setRejecting({ operationId: null });
  useShortcuts({ a: keyApprove, r: openReject, e: startEdit });

  const rejectingOp = rejecting?.operationId ? delta.operations.find((op) => op.id === rejecting.operationId) : null;
  return (
    <article
      ref={articleRef}
      aria-label="Delta"
      aria-busy={loading}
      className={cn("scroll-mt-20 rounded-card border border-line bg-surface shadow-card transition-opacity", loading && "opacity-60")}
    >
      <div className="flex flex-col gap-5 p-4 sm:p-5">
        <Button variant="ghost" size="sm" className="-ml-2 self-start lg:hidden" onClick={onBack}>
          <ArrowLeft aria-hidden /> All deltas
        </Button>
        {conflict ? (
          <ConflictNotice
            message={conflict}
            onReload={() => {
              setConflict(null);
              void invalidate();
            }}
          />
        ) : null}
        <DeltaHeading delta={delta} showPlaybook={showPlaybook} />
        {delta.status === "pending" && delta.flags.stale ? (
          <StaleNotice
            becameStale={!staleOnArrival}
            reasons={delta.staleReasons}
            disabled={!canDecide}
            rebasing={rebase.isPending}
            onRebase={() => rebase.mutate({ deltaId: delta.id })}
            onReject={openReject}
          />
        ) : null}

        <section aria-labelledby={headingId} className="flex flex-col gap-3">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id={headingId} className="text-sm font-semibold text-ink">
              Operations <span className="font-normal text-ink-faint">({delta.operations.length})</span>
            </h3>
            {canDecide && pendingOps.length > 1 ? (
              <div className="ml-auto flex gap-1">
                <Button size="sm" variant="ghost" className="h-7" onClick={() => setIncluded(new Set(pendingOps.map((op) => op.id)))}>
                  Select all
                </Button>
                <Button size="sm" variant="ghost" className="h-7" onClick={() => setIncluded(new Set())}>
                  Select none
                </Button>
              </div>
            ) : null}
          </div>
          {delta.operations.map((op) => (
            <OperationCard
              key={op.id}
              deltaId={delta.id}
              playbookId={delta.playbookId}
              op={op}
              canDecide={canDecide}
              included={included.has(op.id)}
              onIncludedChange={(id, on) =>
                setIncluded((previous) => {
                  const next = new Set(previous);
                  if (on) next.add(id);
                  else next.delete(id);
                  return next;
                })
              }
              editing={editing === op.id}
              onEditingChange={setEditing}
              sections={sectionNames}
              onReject={(operationId) => setRejecting({ operationId })}
              onUseSuggestion={(operation, suggestion) => void merge.replace(operation, suggestion)}
              suggestionPending={merge.pending}
              onDrop={(operationId, reason) => reject.mutate({ deltaId: delta.id, reason, operationIds: [operationId] })}
              operationAnchor={(position) => {
                const other = delta.operations.find((candidate) => candidate.position === position);
                return other ? operationElementId(other.id) : null;
              }}
            />
          ))}
        </section>
        <DeltaFacts delta={delta} />
      </div>

      {delta.status === "pending" ? (
        <DecisionBar
          chosen={chosen}
          pendingCount={pendingOps.length}
          blocker={blocker}
          disabled={!canDecide || reject.isPending}
          approving={approve.isPending}
          error={approve.isError && !isConflict(approve.error) ? errorMessage(approve.error) : null}
          onApprove={runApprove}
          onReject={openReject}
        />
      ) : null}

      <Dialog open={confirming} onOpenChange={setConfirming}>
        {confirming ? (
          <DialogContent
            title={`Approve all ${chosen.length} operations?`}
            description="The a key approves every checked operation of this delta at once. Press a again, or Enter, to go ahead."
          >
            <div
              onKeyDown={(event) => {
                if (event.key === "a" && !event.metaKey && !event.ctrlKey && !event.altKey) {
                  event.preventDefault();
                  runApprove();
                }
              }}
            >
              <p className="text-sm text-ink-muted">{describeChosen(chosen)}</p>
              <DialogFooter>
                <Button variant="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </Button>
                <Button variant="primary" autoFocus onClick={runApprove}>
                  Approve {chosen.length} operations
                </Button>
              </DialogFooter>
            </div>
          </DialogContent>
        ) : null}
      </Dialog>

      <ReasonDialog
        open={rejecting !== null}
        onOpenChange={(open) => {
          if (!open) {
            setRejecting(null);
            reject.reset();
          }
        }}
        title={rejectingOp ? `Reject operation ${rejectingOp.position + 1}` : "Reject this delta"}
        description={
          rejectingOp
            ? "Only this operation is rejected; the others keep waiting for review."
            : "The playbook does not change. The reason is recorded with the delta."
        }
        placeholder="e.g. We already cover this in another bullet"
        confirmLabel={rejectingOp ? "Reject operation" : "Reject delta"}
        pendingLabel="Rejecting…"
        variant="danger"
        pending={reject.isPending}
        error={reject.isError ? errorMessage(reject.error) : null}
        onConfirm={(reason) => reject.mutate({ deltaId: delta.id, reason, ...(rejectingOp ? { operationIds: [rejectingOp.id] } : {}) })}
      />
    </article>
  );
}

/** "3 add · 2 update · 1 archive" for the operations an approval would take. */
function describeChosen(chosen: readonly OperationView[]): string {
  const counts = new Map<string, number>();
  for (const op of chosen)
    counts.set(OPERATION_LABELS[op.type].toLowerCase(), (counts.get(OPERATION_LABELS[op.type].toLowerCase()) ?? 0) + 1);
  return [...counts].map(([label, count]) => `${count} ${label}`).join(" · ");
}

export function DeltaDetailSkeleton() {
  return (
    <LoadingStatus label="Loading the delta…" className="rounded-card border border-line bg-surface p-5 shadow-card">
      <Skeleton className="h-5 w-48" />
      <Skeleton className="mt-3 h-6 w-72 max-w-full" />
      <Skeleton className="mt-4 h-4 w-full" />
      <Skeleton className="mt-2 h-4 w-2/3" />
      <div className="mt-6 flex flex-col gap-3">
        <Skeletons count={3} className="h-28 w-full rounded-lg" />
      </div>
    </LoadingStatus>
  );
}
