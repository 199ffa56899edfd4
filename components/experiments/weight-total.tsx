"use client";
// The line under the weights: their total as one types, what is wrong with it, and "Split evenly".
import { Scale } from "lucide-react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { checkWeights, percentText } from "./form-rules";

export function WeightTotal({ weights, onSplitEvenly, id }: { weights: readonly string[]; onSplitEvenly: () => void; id: string }) {
  const check = checkWeights(weights);
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
      <p id={id} aria-live="polite" className={cn("text-[13px]", check.ok ? "text-ink-muted" : "font-medium text-danger")}>
        Total <span className="tabular-nums">{check.total === null ? "—" : `${percentText(check.total)} %`}</span>
        {check.ok ? " · the weights add up to 100 %." : ` · ${check.message}`}
      </p>
      <Button size="sm" variant="secondary" onClick={onSplitEvenly} className="ml-auto">
        <Scale aria-hidden /> Split evenly
      </Button>
    </div>
  );
}
