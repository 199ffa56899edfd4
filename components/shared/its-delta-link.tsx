// "Its delta": the link from a run or a version to the delta it made, opened in the review queue
// whatever its status, so the run list and the version timeline point there alike.
import { ArrowUpRight } from "lucide-react";
import Link from "next/link";
import { cn } from "@/components/ui/cn";
import { reviewHref } from "./review-url";

export function ItsDeltaLink({
  playbookId,
  deltaId,
  className,
  label,
}: {
  playbookId: string;
  deltaId: string;
  className?: string;
  /** An accessible name that says whose delta, where several such links share a page. */
  label?: string;
}) {
  return (
    <Link
      href={reviewHref(playbookId, { deltaId, status: "all" })}
      aria-label={label}
      className={cn("inline-flex items-center gap-0.5 font-medium text-accent-ink hover:underline", className)}
    >
      Its delta <ArrowUpRight aria-hidden className="size-3" />
    </Link>
  );
}
