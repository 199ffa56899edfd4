import { ListPageSkeleton } from "@/components/ui/page-header";

export default function Loading() {
  return <ListPageSkeleton label="Loading traces…" titleWidth="w-32" filterWidths={["w-full", "w-2/3"]} stackFilters />;
}
