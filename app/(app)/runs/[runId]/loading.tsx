import { RunDetailSkeleton } from "@/components/runs/run-detail";

export default function Loading() {
  return <RunDetailSkeleton />;
}
