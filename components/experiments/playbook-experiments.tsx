"use client";
// A playbook's running experiments, under its header on every tab: each one's leader, whether that
// is significant, the SRM flag and its progress, linking to the results. Nothing when none runs.
import { useQuery } from "@tanstack/react-query";
import { FlaskConical } from "lucide-react";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { plural } from "@/components/ui/format";
import { SrmBadge } from "./experiment-badges";
import { experimentHref, experimentsHref, runningExperimentsInput } from "./experiment-url";
import { formatRate } from "./format";

export function PlaybookExperiments({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const running = useQuery(trpc.experiments.list.queryOptions(runningExperimentsInput(playbookId))).data ?? [];
  if (running.length === 0) return null;
  return (
    <section
      aria-label="Running experiments"
      className="mb-4 flex flex-wrap items-center gap-2 rounded-lg border border-sky-200 bg-sky-50/60 px-3 py-2 text-[13px]"
    >
      <span className="flex items-center gap-1.5 font-medium text-sky-950">
        <FlaskConical aria-hidden className="size-4 text-sky-700" />
        {plural(running.length, "running experiment")}
      </span>
      <ul className="flex min-w-0 flex-wrap items-center gap-2">
        {running.map((experiment) => (
          <li key={experiment.key}>
            <Link
              href={experimentHref(experiment.key)}
              className="inline-flex max-w-full items-center gap-1.5 rounded-md border border-line bg-surface px-2 py-1 text-ink shadow-xs hover:border-line-strong hover:text-accent-ink"
            >
              <span className="truncate font-medium">{experiment.name}</span>
              {experiment.leader ? (
                <span className="whitespace-nowrap text-xs text-ink-muted">
                  {experiment.leader.variant} leads · {formatRate(experiment.leader.successRate)}
                </span>
              ) : (
                <span className="text-xs text-ink-faint">no data yet</span>
              )}
              {experiment.srmFlagged ? <SrmBadge /> : experiment.leader?.significant ? <Badge tone="green">Significant</Badge> : null}
              {experiment.progress !== null ? (
                <span className="whitespace-nowrap text-xs tabular-nums text-ink-faint">
                  {Math.floor(Math.min(1, experiment.progress) * 100)} % of plan
                </span>
              ) : null}
            </Link>
          </li>
        ))}
      </ul>
      <Link href={experimentsHref({ playbookId })} className="ml-auto whitespace-nowrap text-xs font-medium text-sky-900 hover:underline">
        All experiments of this playbook
      </Link>
    </section>
  );
}
