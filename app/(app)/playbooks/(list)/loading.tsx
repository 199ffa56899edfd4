import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { SkeletonRows } from "@/components/ui/skeleton-rows";

export default function Loading() {
  return (
    <LoadingStatus label="Loading playbooks…">
      <div className="flex flex-col gap-4 pb-6 pt-8 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <Skeleton className="h-8 w-40" />
          <Skeleton className="mt-2 h-4 w-72" />
        </div>
        <Skeleton className="h-9 w-56" />
      </div>
      <SkeletonRows rows={4} header rowClassName="flex items-center gap-6 px-5 py-4">
        <Skeleton className="h-4 w-56" />
        <Skeleton className="ml-auto h-4 w-12" />
        <Skeleton className="h-4 w-20" />
      </SkeletonRows>
    </LoadingStatus>
  );
}
