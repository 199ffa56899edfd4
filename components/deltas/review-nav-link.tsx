"use client";
// "Review" in the top bar, with how many deltas wait across all playbooks.
import { useQuery } from "@tanstack/react-query";
import { NavLink } from "@/components/ui/nav-link";
import { formatNumber } from "@/components/ui/format";
import { useTRPC } from "@/components/trpc/client";
import { pendingCountInput } from "@/components/shared/review-url";

export function ReviewNavLink() {
  const trpc = useTRPC();
  const pending = useQuery(trpc.delta.list.queryOptions(pendingCountInput())).data?.total ?? 0;
  return (
    <NavLink href="/review">
      Review
      {pending > 0 ? (
        <span className="ml-1.5 inline-flex h-5 min-w-5 items-center justify-center rounded-full bg-accent px-1.5 text-xs font-medium tabular-nums text-white">
          {formatNumber(pending)}
          <span className="sr-only"> pending</span>
        </span>
      ) : null}
    </NavLink>
  );
}
