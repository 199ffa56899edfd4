import { HistorySkeleton } from "@/components/history/history-view";

export default function Loading() {
  return <HistorySkeleton />;
}
