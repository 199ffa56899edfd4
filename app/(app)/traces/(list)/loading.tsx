import { TableSkeleton } from "@/components/ui/data-table";
import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div>
      <div className="pb-5 pt-8">
        <Skeleton className="h-8 w-32" />
        <Skeleton className="mt-2 h-4 w-[32rem] max-w-full" />
      </div>
      <div className="flex flex-col gap-2 border-b border-line py-3">
        <Skeleton className="h-9 w-full" />
        <Skeleton className="h-9 w-2/3" />
      </div>
      <div className="pt-4">
        <TableSkeleton label="Loading traces…" />
      </div>
    </div>
  );
}
