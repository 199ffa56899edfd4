import { ReviewSkeleton } from "@/components/deltas/review-skeleton";

export default function Loading() {
  return <ReviewSkeleton />;
}
