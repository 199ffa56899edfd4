import type { Metadata } from "next";
import { ReflectTraceButton, TraceRuns } from "@/components/runs/trace-runs";
import { taskTitle } from "@/components/shared/trace-labels";
import { TraceDetailView } from "@/components/traces/trace-detail";
import { HydrateClient } from "@/server/trpc/rsc";
import { loadTrace } from "./load-trace";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ traceId: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const trace = await loadTrace((await params).traceId);
  return { title: `${taskTitle(trace.task, 60)} · Trace` };
}

export default async function TracePage({ params }: Props) {
  const { traceId } = await params;
  await loadTrace(traceId);
  return (
    <HydrateClient>
      <TraceDetailView traceId={traceId} actions={<ReflectTraceButton traceId={traceId} />} runs={<TraceRuns traceId={traceId} />} />
    </HydrateClient>
  );
}
