import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { DetailHeadingSkeleton } from "@/components/ui/detail-parts";

export default function Loading() {
  return (
    <LoadingStatus label="Loading the experiment…" className="flex flex-col gap-5 pb-16 pt-6">
      <DetailHeadingSkeleton crumbWidth="w-32" titleWidth="w-80" lineWidth="w-[28rem]" />
      <Skeleton className="h-20 w-full rounded-card" />
      <Skeleton className="h-72 w-full rounded-card" />
      <Skeleton className="h-64 w-full rounded-card" />
    </LoadingStatus>
  );
}
