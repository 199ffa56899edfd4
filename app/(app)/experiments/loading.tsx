import { ListPageSkeleton } from "@/components/ui/page-header";

export default function Loading() {
  return <ListPageSkeleton label="Loading experiments…" titleWidth="w-36" actionWidth="w-40" filterWidths={["w-64", "w-44"]} rows={5} />;
}
