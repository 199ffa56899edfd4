// Words for what a version changed, shared by the timeline and the diff totals.
import type { VersionCounts } from "@/server/history/schemas";
import { plural } from "@/components/ui/format";

const COUNT_LABELS: [keyof VersionCounts, string, string][] = [
  ["bulletsAdded", "added", "added"],
  ["bulletsEdited", "edited", "edited"],
  ["bulletsMoved", "moved", "moved"],
  ["bulletsMerged", "merged", "merged"],
  ["bulletsArchived", "archived", "archived"],
  ["bulletsRestored", "restored", "restored"],
  ["countersChanged", "counter change", "counter changes"],
  ["sectionsAdded", "section added", "sections added"],
  ["sectionsRenamed", "section renamed", "sections renamed"],
  ["sectionsMoved", "section moved", "sections moved"],
  ["sectionsRemoved", "section removed", "sections removed"],
];

/** ["+3 added", "1 edited"]: only what happened, in a fixed order. */
export function describeVersionCounts(counts: VersionCounts): string[] {
  return COUNT_LABELS.filter(([key]) => counts[key] > 0).map(([key, one, many]) => {
    const text = plural(counts[key], one, many);
    return key === "bulletsAdded" ? `+${text}` : text;
  });
}
