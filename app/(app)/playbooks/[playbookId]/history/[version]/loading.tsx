import { PlaybookAtVersionSkeleton } from "@/components/history/playbook-at-version";

export default function Loading() {
  return <PlaybookAtVersionSkeleton />;
}
