"use client";
// What the engine and the queue found about one operation: problems that block approval,
// near-duplicates (with the bullet they resemble and a one-click merge), limits, conflicts, and
// model-written content that reads like instructions to the agent (a possible prompt injection).
import type { ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { Copy, GitMerge, TriangleAlert, X } from "lucide-react";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { Skeleton } from "@/components/ui/skeleton";
import { bulletHref } from "@/components/ui/routes";
import { useTRPC } from "@/components/trpc/client";
import type { Finding, MergeOperation, OperationConflict } from "@/server/deltas/schemas";
import { reviewHref } from "./review-url";

/** "Operation 3 (update [str-00004]): the content…" → "The content…": the card already says which. */
export function findingText(message: string): string {
  const match = /^Operation \d+ \(.*?\): /.exec(message);
  const rest = match ? message.slice(match[0].length) : message;
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

export function OperationFindings({
  findings,
  conflicts,
  playbookId,
  onUseSuggestion,
  suggestionPending,
  onDrop,
  operationAnchor,
}: {
  findings: readonly Finding[];
  conflicts: readonly OperationConflict[];
  playbookId: string;
  /** Set while the operation can still be changed. */
  onUseSuggestion: ((suggestion: MergeOperation) => void) | null;
  suggestionPending: boolean;
  /** Rejects this operation with the reason given; set while it can still be changed. */
  onDrop: ((reason: string) => void) | null;
  /** The element id of the delta's operation at a 0-based position, to link a duplicate to it. */
  operationAnchor: (position: number) => string | null;
}) {
  if (findings.length === 0 && conflicts.length === 0) return null;
  return (
    <div className="flex flex-col gap-2">
      {findings.map((finding, index) =>
        finding.kind === "near_duplicate" && finding.relatedOperationIndex !== undefined ? (
          <DuplicateOperation
            key={index}
            finding={finding}
            related={finding.relatedOperationIndex}
            anchor={operationAnchor(finding.relatedOperationIndex)}
            onDrop={onDrop}
          />
        ) : finding.kind === "near_duplicate" && finding.matchedBulletId ? (
          <NearDuplicate
            key={index}
            finding={finding}
            matchedBulletId={finding.matchedBulletId}
            playbookId={playbookId}
            onUse={onUseSuggestion}
            pending={suggestionPending}
          />
        ) : finding.kind === "prompt_injection" ? (
          <FindingNotice key={index} title="Possible prompt injection">
            {findingText(finding.message)}
            <span className="mt-1 block text-xs text-amber-900">
              A model wrote this content, and it reads like instructions to the agent that would follow the playbook. Approve it only if it
              is meant as guidance; otherwise edit it or reject the operation.
            </span>
          </FindingNotice>
        ) : (
          <FindingNotice
            key={index}
            tone={finding.severity === "error" ? "danger" : "warning"}
            title={finding.severity === "error" ? "Problem" : "Warning"}
          >
            {findingText(finding.message)}
          </FindingNotice>
        ),
      )}
      {conflicts.map((conflict, index) =>
        conflict.kind === "pending_elsewhere" ? (
          <FindingNotice key={`c${index}`} title="Also changed by another pending delta">
            {conflict.message}{" "}
            <Link href={reviewHref(playbookId, { deltaId: conflict.deltaId })} className="font-medium underline underline-offset-2">
              Open the other delta
            </Link>
          </FindingNotice>
        ) : (
          // The stale banner above explains what to do; here only which operation it concerns.
          <p key={`c${index}`} className="flex items-start gap-1.5 text-[13px] text-amber-900">
            <TriangleAlert aria-hidden className="mt-0.5 size-3.5 shrink-0 text-amber-700" />
            <span>
              <span className="font-medium">Changed since proposed: </span>
              {conflict.message}
            </span>
          </p>
        ),
      )}
    </div>
  );
}

/** A finding or conflict as a compact notice that does not interrupt a screen reader; with a fix, its button and what it does. */
function FindingNotice({
  tone = "warning",
  title,
  fix,
  fixNote,
  children,
}: {
  tone?: "warning" | "danger";
  title: ReactNode;
  fix?: ReactNode;
  fixNote?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Notice
      tone={tone}
      compact
      announce={false}
      title={title}
      actions={
        fix ? (
          <>
            {fix}
            <span className="self-center text-xs text-amber-900">{fixNote}</span>
          </>
        ) : null
      }
    >
      {children}
    </Notice>
  );
}

/** A near-duplicate of what an earlier operation of the same delta writes: keep one, drop the other. */
function DuplicateOperation({
  finding,
  related,
  anchor,
  onDrop,
}: {
  finding: Finding;
  related: number;
  anchor: string | null;
  onDrop: ((reason: string) => void) | null;
}) {
  const label = `operation #${related + 1}`;
  return (
    <FindingNotice
      title={
        <span className="inline-flex items-center gap-1.5">
          <Copy aria-hidden className="size-3.5" />
          Duplicates{" "}
          {anchor ? (
            <a href={`#${anchor}`} className="underline underline-offset-2">
              {label}
            </a>
          ) : (
            label
          )}
        </span>
      }
      fix={
        onDrop ? (
          <Button size="sm" variant="secondary" onClick={() => onDrop(`Duplicates ${label} of this delta.`)}>
            <X aria-hidden /> Drop this operation
          </Button>
        ) : null
      }
      fixNote={<>Rejects only this operation; {label} stays.</>}
    >
      {findingText(finding.message)}
    </FindingNotice>
  );
}

function NearDuplicate({
  finding,
  matchedBulletId,
  playbookId,
  onUse,
  pending,
}: {
  finding: Finding;
  matchedBulletId: string;
  playbookId: string;
  onUse: ((suggestion: MergeOperation) => void) | null;
  pending: boolean;
}) {
  const trpc = useTRPC();
  // The finding quotes only the start of the matched bullet; a reviewer compares whole texts.
  const matched = useQuery(trpc.playbook.bullet.queryOptions({ playbookId, externalId: matchedBulletId }));
  const percent = finding.similarity === undefined ? null : Math.floor(finding.similarity * 100);
  return (
    <FindingNotice
      title={
        <>
          Near-duplicate{percent === null ? "" : `: ${percent}% similar to`}{" "}
          <Link href={bulletHref(playbookId, matchedBulletId)} className="font-mono text-xs underline underline-offset-2">
            [{matchedBulletId}]
          </Link>
        </>
      }
      fix={
        finding.suggestion && onUse ? (
          <Button size="sm" variant="secondary" disabled={pending} onClick={() => finding.suggestion && onUse(finding.suggestion)}>
            <GitMerge aria-hidden /> {pending ? "Merging…" : "Use suggested merge"}
          </Button>
        ) : null
      }
      fixNote={<>Folds this wording into [{finding.suggestion?.into}], which keeps its id and counters.</>}
    >
      <blockquote className="mt-1.5 border-l-2 border-amber-300 pl-2.5 text-[13px] leading-relaxed text-ink-muted">
        {matched.data ? (
          <span className="whitespace-pre-wrap">{matched.data.content}</span>
        ) : matched.isError ? (
          findingText(finding.message)
        ) : (
          <span className="flex flex-col gap-1.5 py-0.5" role="status">
            <span className="sr-only">Loading the matched bullet…</span>
            <Skeleton className="h-3 w-full" />
            <Skeleton className="h-3 w-2/3" />
          </span>
        )}
      </blockquote>
    </FindingNotice>
  );
}
