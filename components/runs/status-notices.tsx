"use client";
// The notices above a playbook's Runs tab: the provider's circuit breaker open or testing, and runs paused.
import { CirclePlay } from "lucide-react";
import { RoleGate } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import { formatNumber, plural } from "@/components/ui/format";
import { Notice } from "@/components/ui/notice";
import { useHydrated } from "@/components/ui/use-hydrated";
import type { RunsStatus } from "@/server/runs/schemas";
import { useSetPaused } from "./use-run-actions";

/** "14:05" in the reader's time zone once the page runs in the browser; UTC before that. */
function ClockTime({ date }: { date: Date }) {
  const hydrated = useHydrated();
  const text = hydrated
    ? date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })
    : `${date.toISOString().slice(11, 16)} UTC`;
  return <time dateTime={date.toISOString()}>{text}</time>;
}

export function StatusNotices({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
  const setPaused = useSetPaused();
  const { circuit } = status;
  return (
    <>
      {circuit.state === "open" ? (
        <Notice
          tone="danger"
          title={
            <>
              Runs are paused: the provider failed {plural(circuit.consecutiveFailures, "time")}
              {circuit.reopensAt ? (
                <>
                  ; they resume at <ClockTime date={circuit.reopensAt} />
                </>
              ) : null}
            </>
          }
        >
          The circuit breaker stops calls to a failing provider for a while. Nothing is lost: queued runs wait, and new traces are stored.
          {circuit.lastError ? (
            <span className="mt-2 block rounded-md bg-surface/70 px-2.5 py-1.5 font-mono text-xs text-rose-950">
              Last error: {circuit.lastError}
            </span>
          ) : null}
        </Notice>
      ) : circuit.state === "half_open" ? (
        <Notice tone="info" title="Trying the provider again">
          After {formatNumber(circuit.consecutiveFailures)} failures the breaker lets one run through to see whether the provider has
          recovered.
        </Notice>
      ) : null}
      {status.paused ? (
        <Notice
          tone="warning"
          title="Runs of this playbook are paused"
          actions={
            <RoleGate action="run.start">
              <Button
                size="sm"
                variant="secondary"
                disabled={setPaused.isPending}
                onClick={() => setPaused.mutate({ playbookId, paused: false })}
              >
                <CirclePlay aria-hidden /> Resume runs
              </Button>
            </RoleGate>
          }
        >
          Queued runs wait until you resume; agents can still send traces, and they are kept.
        </Notice>
      ) : null}
    </>
  );
}
