"use client";
// What the Outcomes chart says before there is anything to draw: what will appear, and the request
// an agent sends to make it appear (a trace, back-dated if it ran earlier).
import { CalendarSearch, LineChart } from "lucide-react";
import { Button } from "@/components/ui/button";
import { TextBlock } from "@/components/ui/text-block";
import { useHydrated } from "@/components/ui/use-hydrated";

/** 'it'\''s': a value inside single quotes in a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A curl that posts one back-dated trace with an outcome, a variant and the agent's own cost. */
export function traceCurl(origin: string, playbookName: string, timestamp: string): string {
  const body = JSON.stringify(
    {
      playbook: playbookName,
      externalId: "run-1",
      task: "Refund order 1042",
      reasoning: "Following [str-00001], I checked the order first.",
      output: "Refunded.",
      outcome: "success",
      variant: "A",
      timestamp,
      model: "gpt-4.1-mini",
      usage: { inputTokens: 1500, outputTokens: 300, costUsd: 0.0011 },
    },
    null,
    2,
  );
  return [
    `curl -s -X POST ${shellQuote(`${origin}/api/v1/traces`)} \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellQuote(body)}`,
  ].join("\n");
}

export function NoTraces({
  playbookName,
  hasEarlier,
  renderedAt,
  onShowAll,
}: {
  playbookName: string;
  /** The playbook has traces or versions outside this range. */
  hasEarlier: boolean;
  renderedAt: number;
  onShowAll: () => void;
}) {
  const hydrated = useHydrated();
  const origin = hydrated ? window.location.origin : "http://localhost:3000";
  // Yesterday at the time the page was made: the same text on the server and in the browser.
  const timestamp = `${new Date(renderedAt - 86_400_000).toISOString().slice(0, 19)}Z`;
  return (
    <div className="flex flex-col items-center px-4 py-8 text-center">
      <div className="mb-3 flex size-10 items-center justify-center rounded-xl bg-accent-soft text-accent" aria-hidden>
        {hasEarlier ? <CalendarSearch className="size-5" /> : <LineChart className="size-5" />}
      </div>
      <h3 className="text-sm font-semibold text-ink">{hasEarlier ? "No traces in this range" : "No traces yet"}</h3>
      <p className="mt-1 max-w-xl text-[13px] text-ink-muted">
        The success rate per bucket, with its 95 % band, the traces per bucket and a flag for every version appear here once agents report
        their runs. Each trace needs the playbook and the task; an outcome (success or failure) makes it count in the rate, a variant gives
        it a series of its own, and a <code className="font-mono text-[12px]">timestamp</code> back-dates a run that happened earlier.
      </p>
      {hasEarlier ? (
        <Button variant="secondary" size="sm" className="mt-3" onClick={onShowAll}>
          Show all time
        </Button>
      ) : null}
      <div className="mt-4 w-full max-w-2xl text-left">
        <TextBlock text={traceCurl(origin, playbookName, timestamp)} label="curl request that posts a trace" />
        <p className="mt-2 text-xs text-ink-faint">
          For two weeks of past runs at once:{" "}
          <code className="font-mono">python3 ace_agent.py --playbook {shellQuote(playbookName)} --traces 100 --backfill-days 14</code> (
          <a href="/examples/ace_agent.py" className="text-accent-ink hover:underline">
            ace_agent.py
          </a>
          , standard-library Python).
        </p>
      </div>
    </div>
  );
}
