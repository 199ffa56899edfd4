import { ListSkeleton } from "@/components/playbooks/bullet-list";
import { Skeleton, Skeletons } from "@/components/ui/skeleton";

/** Mirrors the bullets tab box for box (the header and tabs belong to the layout). */
export default function Loading() {
  return (
    <div>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 xl:grid-cols-8">
        <Skeletons count={8} className="h-[62px] rounded-lg" />
      </div>
      <div className="mt-6 grid grid-cols-1 gap-8 lg:grid-cols-[15rem_minmax(0,1fr)]">
        <div className="hidden flex-col gap-2 lg:flex">
          <Skeletons count={8} className="h-6" />
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
