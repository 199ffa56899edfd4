"use client";
// Bullet detail in a side sheet, driven by ?bullet=<externalId> so it can be linked to. Every
// field a person may change is edited in place here, and each change is a new version.
import { useQuery } from "@tanstack/react-query";
import { Check, Copy, Link2 } from "lucide-react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Dialog, SheetContent } from "@/components/ui/dialog";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { useTRPC } from "@/components/trpc/client";
import { BulletLineage } from "@/components/history/bullet-lineage";
import type { BulletDetail, PlaybookDetail } from "@/server/playbooks/schemas";
import { BulletContentEditor } from "./bullet-content-editor";
import { BulletCounterEditor, BulletSectionEditor, BulletStatusEditor } from "./bullet-field-editors";
import { BulletPinEditor } from "./bullet-pin-editor";
import { errorMessage, isNotFound } from "@/components/ui/errors";
import { ORIGIN_LABELS, SIGNAL_META } from "./labels";
import { ExactTime } from "@/components/ui/relative-time";
import { SignalBadge } from "./signal-badge";

export function BulletSheet({
  playbook,
  externalId,
  onClose,
}: {
  playbook: PlaybookDetail;
  externalId: string | null;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const playbookId = playbook.id;
  // The bullet last shown: when the sheet closes, focus goes back to its row in the list.
  const shown = useRef(externalId);
  useEffect(() => {
    if (externalId !== null) shown.current = externalId;
  }, [externalId]);
  const query = useQuery({
    ...trpc.playbook.bullet.queryOptions({ playbookId, externalId: externalId ?? "" }),
    enabled: externalId !== null,
  });

  return (
    <Dialog open={externalId !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      {externalId !== null ? (
        <SheetContent
          title={<span className="font-mono text-[15px]">[{externalId}]</span>}
          description={query.data ? `In ${query.data.sectionName}` : "Bullet detail"}
          actions={<CopyButtons externalId={externalId} />}
          onCloseAutoFocus={(event) => {
            const id = shown.current;
            const row = id ? document.querySelector<HTMLElement>(`a[data-row-link][data-bullet="${CSS.escape(id)}"]`) : null;
            if (!row) return;
            event.preventDefault();
            row.focus({ preventScroll: true });
            row.scrollIntoView({ block: "nearest" });
          }}
        >
          {query.data ? (
            // Keyed by bullet: an edit left open on one bullet does not carry over to the next.
            <BulletDetailBody key={query.data.externalId} bullet={query.data} playbook={playbook} />
          ) : query.isError ? (
            <div role="alert" className="rounded-lg border border-rose-200 bg-danger-soft p-4 text-sm text-rose-900">
              {isNotFound(query.error)
                ? `There is no bullet ${externalId} in this playbook. It may have been removed, or the link has a typo.`
                : errorMessage(query.error)}
            </div>
          ) : (
            <DetailSkeleton />
          )}
        </SheetContent>
      ) : null}
    </Dialog>
  );
}

function CopyButtons({ externalId }: { externalId: string }) {
  const [copied, setCopied] = useState(false);
  async function copy(text: string, what: string) {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(`Copied ${what}`);
      return true;
    } catch {
      toast.error("The clipboard is not available here. Select the text and copy it instead.");
      return false;
    }
  }
  return (
    <div className="flex items-center gap-1">
      <Button
        size="sm"
        variant="secondary"
        onClick={async () => {
          if (await copy(externalId, externalId)) {
            setCopied(true);
            setTimeout(() => setCopied(false), 1500);
          }
        }}
      >
        {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
        {copied ? "Copied" : "Copy id"}
      </Button>
      <Button
        size="icon"
        variant="ghost"
        aria-label="Copy link to this bullet"
        title="Copy link"
        onClick={() => void copy(window.location.href, "link")}
      >
        <Link2 aria-hidden />
      </Button>
    </div>
  );
}

function BulletDetailBody({ bullet, playbook }: { bullet: BulletDetail; playbook: PlaybookDetail }) {
  const meta = SIGNAL_META[bullet.signal];
  const score = bullet.helpful - bullet.harmful;
  return (
    <div className="flex flex-col gap-6">
      <BulletContentEditor bullet={bullet} playbook={playbook} />

      <dl className="grid grid-cols-[6.5rem_1fr] gap-x-4 gap-y-4 text-sm sm:grid-cols-[8rem_1fr]">
        <Row term="Signal">
          <div className="flex flex-col items-start gap-1.5">
            <SignalBadge signal={bullet.signal} />
            <p className="text-ink-muted">
              <span className="text-ink-faint">Rule: </span>
              {meta.rule}
            </p>
          </div>
        </Row>
        <Row term="Counters">
          <BulletCounterEditor bullet={bullet} playbook={playbook} />
        </Row>
        <Row term="Score">
          {bullet.countersKnown ? (
            <span className="tabular-nums">
              <span className="font-semibold">{score > 0 ? `+${score}` : score}</span>
              <span className="text-ink-faint"> (helpful − harmful)</span>
            </span>
          ) : (
            <span className="text-ink-faint">not measured</span>
          )}
        </Row>
        <Row term="Section">
          <BulletSectionEditor bullet={bullet} playbook={playbook} />
        </Row>
        <Row term="Status">
          <BulletStatusEditor bullet={bullet} playbook={playbook} />
        </Row>
        <Row term="Pin">
          <BulletPinEditor bullet={bullet} playbook={playbook} />
        </Row>
        <Row term="Provenance">
          <div className="flex flex-col gap-0.5">
            <span>{ORIGIN_LABELS[bullet.origin]}</span>
            {bullet.sourceTraceId ? (
              <span className="text-ink-muted">
                Trace <span className="font-mono text-xs text-ink">{bullet.sourceTraceId}</span>
              </span>
            ) : null}
            {bullet.sourceRunId ? (
              <span className="text-ink-muted">
                Run <span className="font-mono text-xs text-ink">{bullet.sourceRunId}</span>
              </span>
            ) : null}
          </div>
        </Row>
        {bullet.justification ? <Row term="Justification">{<Prose text={bullet.justification} />}</Row> : null}
        {bullet.evidence ? <Row term="Evidence">{<Prose text={bullet.evidence} />}</Row> : null}
        <Row term="Created">
          <ExactTime date={bullet.createdAt} />
        </Row>
        <Row term="Updated">
          <ExactTime date={bullet.updatedAt} />
        </Row>
      </dl>

      <BulletLineage playbookId={playbook.id} bulletId={bullet.externalId} sections={playbook.sections} />
    </div>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="pt-0.5 text-[13px] font-medium text-ink-faint">{term}</dt>
      <dd className="min-w-0 text-ink">{children}</dd>
    </>
  );
}

function Prose({ text }: { text: string }) {
  return <p className="whitespace-pre-wrap break-words leading-relaxed text-ink-muted">{text}</p>;
}

function DetailSkeleton() {
  return (
    <LoadingStatus label="Loading bullet…" className="flex flex-col gap-6">
      <Skeleton className="h-28 w-full rounded-lg" />
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} className="grid grid-cols-[6.5rem_1fr] gap-4 sm:grid-cols-[8rem_1fr]">
          <Skeleton className="h-4 w-20" />
          <Skeleton className="h-4 w-48" />
        </div>
      ))}
    </LoadingStatus>
  );
}
