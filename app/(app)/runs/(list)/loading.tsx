import { ListPageSkeleton } from "@/components/ui/page-header";

export default function Loading() {
  return <ListPageSkeleton label="Loading runs…" titleWidth="w-24" actionWidth="w-36" filterWidths={["w-64", "w-44", "w-44"]} />;
}
