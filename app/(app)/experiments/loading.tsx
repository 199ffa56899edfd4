import { TableSkeleton } from "@/components/ui/data-table";
import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div>
      <div className="flex flex-col gap-4 pb-5 pt-8 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <Skeleton className="h-8 w-36" />
          <Skeleton className="mt-2 h-4 w-[32rem] max-w-full" />
        </div>
        <Skeleton className="h-9 w-40" />
      </div>
      <div className="flex gap-2 border-b border-line py-3">
        <Skeleton className="h-9 w-64" />
        <Skeleton className="h-9 w-44" />
      </div>
      <div className="pt-4">
        <TableSkeleton label="Loading experiments…" rows={5} />
      </div>
    </div>
  );
}
