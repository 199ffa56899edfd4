import { ListSkeleton } from "@/components/playbooks/bullet-list";
import { Skeleton } from "@/components/ui/skeleton";

/** Mirrors the playbook page's layout box for box, so nothing jumps when it arrives. */
export default function Loading() {
  return (
    <div>
      <div className="flex flex-col gap-4 pb-5 pt-6 md:flex-row md:items-start md:justify-between">
        <div>
          <Skeleton className="mb-2 h-3 w-32" />
          <Skeleton className="h-8 w-72" />
          <Skeleton className="mt-2.5 h-4 w-96 max-w-full" />
        </div>
        <div className="flex gap-2">
          <Skeleton className="h-9 w-52" />
          <Skeleton className="h-9 w-28" />
        </div>
      </div>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 xl:grid-cols-8">
        {Array.from({ length: 8 }, (_, i) => (
          <Skeleton key={i} className="h-[62px] rounded-lg" />
        ))}
      </div>
      <div className="mt-6 grid grid-cols-1 gap-8 lg:grid-cols-[15rem_minmax(0,1fr)]">
        <div className="hidden flex-col gap-2 lg:flex">
          {Array.from({ length: 8 }, (_, i) => (
            <Skeleton key={i} className="h-6" />
          ))}
        </div>
        <div className="min-w-0">
          <div className="flex flex-col gap-2.5 border-b border-line py-3">
            <Skeleton className="h-9 w-full" />
            <Skeleton className="h-7 w-3/4" />
          </div>
          <div className="pt-4">
            <ListSkeleton />
          </div>
        </div>
      </div>
    </div>
  );
}
