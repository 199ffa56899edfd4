"use client";
// A playbook's latest runs and traces on its Runs tab, each with a link to all of them.
import { useQuery } from "@tanstack/react-query";
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

export function RecentRuns({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.runs.list.queryOptions(playbookRunsInputs(playbookId).runs),
    refetchInterval: (q) => (q.state.data?.items.some(isActive) ? ACTIVE_POLL_MS : false),
  });
  const total = query.data?.total ?? 0;
  return (
    <section aria-labelledby="recent-runs" className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <h3 id="recent-runs" className="text-sm font-semibold text-ink">
          Latest runs {query.data ? <span className="font-normal tabular-nums text-ink-faint">({formatNumber(total)})</span> : null}
        </h3>
        {total > 0 ? (
          <div className="ml-auto">
            <ListHeaderLink href={runsHref({ playbookId })}>All runs of this playbook</ListHeaderLink>
          </div>
        ) : null}
      </div>
      {query.isPending ? (
        <TableSkeleton label="Loading runs…" rows={3} />
      ) : query.isError ? (
        <Notice tone="danger" compact>
          The runs could not be loaded. {query.error.message}
        </Notice>
      ) : query.data.items.length === 0 ? (
        <p className="rounded-card border border-dashed border-line-strong bg-surface px-5 py-6 text-center text-sm text-ink-muted">
          No runs yet. A reflector run starts for every trace an agent reports; connect one below.
        </p>
      ) : (
        <RunsTable items={query.data.items} showPlaybook={false} virtual={false} />
      )}
    </section>
  );
}

export function RecentTraces({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.traces.list.queryOptions(playbookRunsInputs(playbookId).traces));
  return (
    <section aria-labelledby="recent-traces" className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <h3 id="recent-traces" className="text-sm font-semibold text-ink">
          Latest traces
        </h3>
        {query.data && query.data.items.length > 0 ? (
          <div className="ml-auto">
            <ListHeaderLink href={tracesHref({ playbookId })}>All traces of this playbook</ListHeaderLink>
          </div>
        ) : null}
      </div>
      {query.isPending ? (
        <TableSkeleton label="Loading traces…" rows={3} />
      ) : query.isError ? (
        <Notice tone="danger" compact>
          The traces could not be loaded. {query.error.message}
        </Notice>
      ) : query.data.items.length === 0 ? (
        <p className="rounded-card border border-dashed border-line-strong bg-surface px-5 py-6 text-center text-sm text-ink-muted">
          No traces yet. An agent sends one after each task; the request is below.
        </p>
      ) : (
        <TracesTable items={query.data.items} showPlaybook={false} virtual={false} />
      )}
    </section>
  );
}
