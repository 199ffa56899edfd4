import { Skeletons } from "@/components/ui/skeleton";
import { DeltaDetailSkeleton } from "./delta-detail";
import { DeltaListSkeleton } from "./delta-list";

/** The queue's layout while it loads: filters, list, detail, box for box. */
export function ReviewSkeleton() {
  return (
    <div>
      <div className="mb-4 flex gap-1.5">
        <Skeletons count={6} className="h-8 w-20 rounded-full" />
      </div>
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,23rem)_minmax(0,1fr)]">
        <DeltaListSkeleton />
        <div className="hidden lg:block">
          <DeltaDetailSkeleton />
        </div>
      </div>
    </div>
  );
}
