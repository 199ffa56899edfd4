import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <LoadingStatus label="Loading settings…" className="mx-auto flex max-w-4xl flex-col gap-6">
      {[2, 4, 5, 1].map((rows, i) => (
        <div key={i} className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
          <div className="border-b border-line px-5 py-3">
            <Skeleton className="h-4 w-40" />
            <Skeleton className="mt-1.5 h-3.5 w-72" />
          </div>
          {Array.from({ length: rows }, (_, j) => (
            <div key={j} className="flex gap-6 border-b border-line px-5 py-4 last:border-0">
              <div className="flex-1 space-y-2">
                <Skeleton className="h-4 w-48" />
                <Skeleton className="h-3.5 w-full" />
              </div>
              <Skeleton className="h-9 w-32" />
            </div>
          ))}
        </div>
      ))}
    </LoadingStatus>
  );
}
