"use client";
// Approve or reject the checked deltas at once. The server decides them one by one, so some may
// fail (stale, a problem to fix) while the others go through; those stay checked and say why.
import { useMutation } from "@tanstack/react-query";
import { Check, X } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { errorMessage } from "@/components/ui/errors";
import { plural } from "@/components/ui/format";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { asSentence, type BulkResult } from "@/server/deltas/schemas";

export function BulkBar({ checked, onDone }: { checked: ReadonlySet<string>; onDone: (failedIds: string[]) => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const [rejecting, setRejecting] = useState(false);

  const mutation = useMutation(
    trpc.delta.bulk.mutationOptions({
      onSuccess: async (result, input) => {
        report(result, input.action === "approve" ? "approved" : "rejected");
        setRejecting(false);
        onDone(result.results.filter((r) => !r.ok).map((r) => r.deltaId));
        await invalidate();
      },
    }),
  );
  const ids = [...checked];

  return (
    <div className="flex min-w-0 flex-1 flex-wrap items-center gap-2">
      <span className="text-xs font-medium text-ink">{checked.size} selected</span>
      <div className="ml-auto flex gap-1.5">
        <Button
          size="sm"
          variant="primary"
          className="h-7"
          disabled={mutation.isPending}
          onClick={() => mutation.mutate({ action: "approve", deltaIds: ids })}
        >
          <Check aria-hidden /> Approve {checked.size}
        </Button>
        <Button size="sm" variant="secondary" className="h-7" disabled={mutation.isPending} onClick={() => setRejecting(true)}>
          <X aria-hidden /> Reject {checked.size}…
        </Button>
      </div>
      <ReasonDialog
        open={rejecting}
        onOpenChange={(open) => {
          setRejecting(open);
          if (!open) mutation.reset();
        }}
        title={`Reject ${plural(checked.size, "delta")}`}
        description="One reason for all of them; it is recorded with each delta. The playbook does not change."
        placeholder="e.g. Duplicates of guidance we already have"
        confirmLabel={`Reject ${plural(checked.size, "delta")}`}
        pendingLabel="Rejecting…"
        variant="danger"
        pending={mutation.isPending}
        error={mutation.isError ? errorMessage(mutation.error) : null}
        onConfirm={(reason) => mutation.mutate({ action: "reject", deltaIds: ids, reason })}
      />
    </div>
  );
}

function report(result: BulkResult, verb: string) {
  const failures = result.results.filter((r) => !r.ok);
  if (failures.length === 0) {
    toast.success(`${plural(result.succeeded, "delta")} ${verb}`);
    return;
  }
  // The first reason in full; the failed ones stay checked so they can be opened one by one.
  toast.error(`${result.succeeded} ${verb}, ${failures.length} not`, {
    description: [
      asSentence(failures[0]?.error?.message ?? "A delta could not be decided"),
      failures.length > 1 ? `${plural(failures.length - 1, "other delta")} failed too.` : "",
      "The ones that failed are still selected.",
    ]
      .filter(Boolean)
      .join(" "),
  });
}
