import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div role="status" className="flex flex-col gap-5 pb-16 pt-6">
      <span className="sr-only">Loading the experiment…</span>
      <div>
        <Skeleton className="mb-2 h-3 w-32" />
        <Skeleton className="h-8 w-80 max-w-full" />
        <Skeleton className="mt-2.5 h-4 w-[28rem] max-w-full" />
      </div>
      <Skeleton className="h-20 w-full rounded-card" />
      <Skeleton className="h-72 w-full rounded-card" />
      <Skeleton className="h-64 w-full rounded-card" />
    </div>
  );
}
