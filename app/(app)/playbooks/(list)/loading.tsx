import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";

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
      <div className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
        <div className="h-10 border-b border-line bg-subtle/50" />
        {Array.from({ length: 4 }, (_, i) => (
          <div key={i} className="flex items-center gap-6 border-b border-line px-5 py-4 last:border-0">
            <Skeleton className="h-4 w-56" />
            <Skeleton className="ml-auto h-4 w-12" />
            <Skeleton className="h-4 w-20" />
          </div>
        ))}
      </div>
    </LoadingStatus>
  );
}
