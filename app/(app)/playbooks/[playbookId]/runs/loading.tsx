import { PlaybookRunsSkeleton } from "@/components/runs/playbook-runs";

export default function Loading() {
  return <PlaybookRunsSkeleton />;
}
