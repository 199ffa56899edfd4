"use client";
import { useQuery } from "@tanstack/react-query";
import { Calculator } from "lucide-react";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/components/ui/errors";
import { formatNumber } from "@/components/ui/format";
import { useTRPC } from "@/components/trpc/client";
import { ALPHA, POWER } from "@/server/experiments/schemas";
import { parseBaseline, parseMde, type ExperimentDraft } from "./draft";
import { FormSection, TextField } from "./form-fields";
import { formatRate } from "./format";

/**
 * The calculator: a baseline success rate and the smallest change worth detecting give the units
 * each variant needs (the server's sample-size formula, α two-sided and power as the results use).
 */
export function SampleSizeSection({
  draft,
  problems,
  onChange,
}: {
  draft: ExperimentDraft;
  problems: { baseline?: string; mde?: string; planned?: string };
  onChange: (next: Partial<ExperimentDraft>) => void;
}) {
  const trpc = useTRPC();
  const baseline = parseBaseline(draft.baseline);
  const mde = parseMde(draft.mde);
  const beyondOne = baseline !== null && mde !== null && baseline + mde > 1;
  const ready = baseline !== null && mde !== null && !beyondOne;
  const size = useQuery({
    ...trpc.experiments.sampleSize.queryOptions({ baseline: baseline ?? 0.5, mde: mde ?? 0.05 }),
    enabled: ready,
    staleTime: Infinity,
  });
  const units = ready ? (size.data?.unitsPerVariant ?? null) : null;
  const variants = draft.variants.length;

  return (
    <FormSection
      title="Sample size"
      description={`Fixed-horizon design: results are read once every variant reaches the planned units (α = ${ALPHA} two-sided, power ${POWER * 100} %).`}
    >
      <div className="grid gap-4 sm:grid-cols-3">
        <TextField
          label="Baseline success rate (%)"
          value={draft.baseline}
          error={problems.baseline}
          inputMode="decimal"
          placeholder="e.g. 40"
          hint="The control's success rate today."
          onChange={(text) => onChange({ baseline: text })}
        />
        <TextField
          label="Minimum detectable effect (points)"
          value={draft.mde}
          error={problems.mde ?? (beyondOne ? "The baseline plus the MDE must stay at most 100 %." : undefined)}
          inputMode="decimal"
          hint="The smallest absolute change worth detecting: 5 = 5 percentage points."
          onChange={(text) => onChange({ mde: text })}
        />
        <TextField
          label="Planned units per variant"
          optional
          value={draft.planned}
          error={problems.planned}
          inputMode="numeric"
          hint="Without a plan the results are never called early."
          onChange={(text) => onChange({ planned: text })}
        />
      </div>
      <div role="status" aria-live="polite" className="flex flex-wrap items-center gap-3 rounded-lg bg-subtle/60 px-3 py-2.5 text-[13px]">
        <Calculator aria-hidden className="size-4 shrink-0 text-ink-faint" />
        {!ready ? (
          <span className="text-ink-muted">Enter a baseline and an MDE to see the units each variant needs.</span>
        ) : size.isError ? (
          <span className="text-danger">{errorMessage(size.error)}</span>
        ) : units === null ? (
          <span className="text-ink-muted">Calculating…</span>
        ) : (
          <>
            <span className="text-ink">
              <span className="font-semibold tabular-nums">{formatNumber(units)}</span> units per variant ({formatNumber(units * variants)}{" "}
              in all) to detect {formatRate(baseline)} → {formatRate((baseline ?? 0) + (mde ?? 0))}.
            </span>
            <Button size="sm" variant="secondary" className="ml-auto" onClick={() => onChange({ planned: String(units) })}>
              Use as the planned sample
            </Button>
          </>
        )}
      </div>
    </FormSection>
  );
}
