import { ReviewSkeleton } from "@/components/deltas/review-skeleton";
import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div>
      <div className="pb-5 pt-8">
        <Skeleton className="h-8 w-32" />
        <Skeleton className="mt-2 h-4 w-[28rem] max-w-full" />
      </div>
      <ReviewSkeleton />
    </div>
  );
}
