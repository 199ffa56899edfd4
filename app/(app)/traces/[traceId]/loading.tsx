import { TraceDetailSkeleton } from "@/components/traces/trace-detail";

export default function Loading() {
  return <TraceDetailSkeleton />;
}
