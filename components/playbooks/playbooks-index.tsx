"use client";
// The playbooks list page body: heading with actions, then the table (or an empty state).
import { useSuspenseQuery } from "@tanstack/react-query";
import { BookOpen, FileUp } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { useTRPC } from "@/components/trpc/client";
import type { PlaybookListItem } from "@/server/playbooks/schemas";
import { ImportDialog } from "./import-dialog";
import { FORMAT_LABELS, FORMAT_SHORT } from "./labels";
import { NewPlaybookDialog } from "./new-playbook-dialog";
import { RelativeTime } from "@/components/ui/relative-time";
import { formatNumber } from "@/components/ui/format";

export function PlaybooksIndex() {
  const trpc = useTRPC();
  const { data: playbooks } = useSuspenseQuery(trpc.playbook.list.queryOptions());
  return (
    <>
      <PageHeading
        actions={
          <>
            <ImportDialog
              trigger={
                <Button variant="secondary">
                  <FileUp aria-hidden /> Import
                </Button>
              }
            />
            <NewPlaybookDialog />
          </>
        }
      />
      {playbooks.length === 0 ? (
        <EmptyState icon={<BookOpen />} title="No playbooks yet">
          A playbook holds what your agent has learned: bullets grouped in sections, each with helpful and harmful counts. Import one an ACE
          run produced, or start an empty one.
        </EmptyState>
      ) : (
        <PlaybookTable playbooks={playbooks} />
      )}
    </>
  );
}

export function PageHeading({ actions }: { actions?: ReactNode }) {
  return (
    <div className="flex flex-col gap-4 pb-6 pt-8 sm:flex-row sm:items-end sm:justify-between">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-ink">Playbooks</h1>
        <p className="mt-1 text-sm text-ink-muted">The evolving contexts your agents read before every task.</p>
      </div>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}

const TH = "px-4 py-2.5 text-left text-xs font-medium text-ink-faint first:pl-5 last:pr-5";
const TD = "px-4 py-3 first:pl-5 last:pr-5";

function PlaybookTable({ playbooks }: { playbooks: PlaybookListItem[] }) {
  return (
    <div className="overflow-x-auto rounded-card border border-line bg-surface shadow-card">
      <table className="w-full min-w-[20rem] text-sm">
        <caption className="sr-only">Playbooks</caption>
        <thead className="border-b border-line bg-subtle/50">
          <tr>
            <th scope="col" className={TH}>
              Name
            </th>
            <th scope="col" className={`${TH} hidden md:table-cell`}>
              Agent
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Bullets
            </th>
            <th scope="col" className={`${TH} hidden text-right sm:table-cell`}>
              Sections
            </th>
            <th scope="col" className={`${TH} hidden lg:table-cell`}>
              Format
            </th>
            <th scope="col" className={`${TH} hidden text-right md:table-cell`}>
              Version
            </th>
            <th scope="col" className={`${TH} text-right`}>
              Last change
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {playbooks.map((playbook) => (
            <tr key={playbook.id} className="group relative transition-colors hover:bg-subtle/60">
              <td className={TD}>
                {/* The link stretches over the row, so the whole row is one click target. */}
                <Link
                  href={`/playbooks/${playbook.id}`}
                  className="font-medium text-ink after:absolute after:inset-0 after:content-[''] hover:text-accent focus-visible:outline-none focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus"
                >
                  {playbook.name}
                </Link>
                {playbook.description ? (
                  <p className="mt-0.5 line-clamp-1 max-w-md text-xs text-ink-faint">{playbook.description}</p>
                ) : null}
              </td>
              <td className={`${TD} hidden text-ink-muted md:table-cell`}>
                {playbook.agentLabel || <span className="text-ink-faint">—</span>}
              </td>
              <td className={`${TD} text-right tabular-nums`}>{formatNumber(playbook.bulletCount)}</td>
              <td className={`${TD} hidden text-right tabular-nums text-ink-muted sm:table-cell`}>{playbook.sectionCount}</td>
              <td className={`${TD} hidden lg:table-cell`}>
                <Badge tone="neutral" title={FORMAT_LABELS[playbook.sourceFormat]}>
                  {FORMAT_SHORT[playbook.sourceFormat]}
                </Badge>
              </td>
              <td className={`${TD} hidden text-right tabular-nums text-ink-muted md:table-cell`}>v{playbook.version}</td>
              <td className={`${TD} whitespace-nowrap text-right text-ink-muted`}>
                <RelativeTime date={playbook.updatedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
