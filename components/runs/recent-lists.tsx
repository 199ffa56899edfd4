"use client";
// A playbook's latest runs and traces on its Runs tab, each with a link to all of them.
import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { ArrowRight } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Notice } from "@/components/ui/notice";
import { useTRPC } from "@/components/trpc/client";
import { TableSkeleton } from "@/components/ui/data-table";
import { tracesHref } from "@/components/shared/trace-url";
import { TracesTable } from "@/components/shared/traces-table";
import { formatNumber } from "@/components/ui/format";
import { isActive } from "@/components/shared/run-labels";
import { RunsTable } from "./runs-table";
import { playbookRunsInputs, runsHref } from "./runs-url";
import { ACTIVE_POLL_MS } from "./status-polling";

function ListHeaderLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className="inline-flex items-center gap-1 text-[13px] font-medium text-accent-ink hover:underline">
      {children} <ArrowRight aria-hidden className="size-3.5" />
    </Link>
  );
}

/** One of the two lists: its heading and link, then loading, the error, the empty note or the table. */
function RecentList<T>({
  id,
  heading,
  link,
  query,
  what,
  empty,
  table,
}: {
  id: string;
  heading: ReactNode;
  link: { href: string; label: string } | null;
  query: UseQueryResult<{ items: T[] }, { message: string }>;
  what: string;
  empty: string;
  table: (items: T[]) => ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <h3 id={id} className="text-sm font-semibold text-ink">
          {heading}
        </h3>
        {link ? (
          <div className="ml-auto">
            <ListHeaderLink href={link.href}>{link.label}</ListHeaderLink>
          </div>
        ) : null}
      </div>
      {query.isPending ? (
        <TableSkeleton label={`Loading ${what}…`} rows={3} />
      ) : query.isError ? (
        <Notice tone="danger" compact>
          The {what} could not be loaded. {query.error.message}
        </Notice>
      ) : query.data.items.length === 0 ? (
        <p className="rounded-card border border-dashed border-line-strong bg-surface px-5 py-6 text-center text-sm text-ink-muted">
          {empty}
        </p>
      ) : (
        table(query.data.items)
      )}
    </section>
  );
}

export function RecentRuns({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.runs.list.queryOptions(playbookRunsInputs(playbookId).runs),
    refetchInterval: (q) => (q.state.data?.items.some(isActive) ? ACTIVE_POLL_MS : false),
  });
  const total = query.data?.total ?? 0;
  return (
    <RecentList
      id="recent-runs"
      heading={
        <>Latest runs {query.data ? <span className="font-normal tabular-nums text-ink-faint">({formatNumber(total)})</span> : null}</>
      }
      link={total > 0 ? { href: runsHref({ playbookId }), label: "All runs of this playbook" } : null}
      query={query}
      what="runs"
      empty="No runs yet. A reflector run starts for every trace an agent reports; connect one below."
      table={(items) => <RunsTable items={items} showPlaybook={false} virtual={false} />}
    />
  );
}

export function RecentTraces({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.traces.list.queryOptions(playbookRunsInputs(playbookId).traces));
  return (
    <RecentList
      id="recent-traces"
      heading="Latest traces"
      link={query.data && query.data.items.length > 0 ? { href: tracesHref({ playbookId }), label: "All traces of this playbook" } : null}
      query={query}
      what="traces"
      empty="No traces yet. An agent sends one after each task; the request is below."
      table={(items) => <TracesTable items={items} showPlaybook={false} virtual={false} />}
    />
  );
}
