// The panels under the results table: the paired evaluation (McNemar), the power figures, the
// variants as defined with what each served, and the methods note naming how every figure is made.
import { Badge } from "@/components/ui/badge";
import { formatNumber, plural } from "@/components/ui/format";
import { versionHref } from "@/components/ui/routes";
import type { ExperimentDefinition, ExperimentResults, PairedResult, PowerResult } from "@/server/experiments/schemas";
import Link from "next/link";
import { targetLabel } from "./experiment-badges";
import { formatPValue, formatRate, formatRateChange, formatShare } from "./format";

/** The 2 × 2 table of tasks run under both the control and the variant, and the exact McNemar test. */
export function PairedPanel({ control, variant, paired }: { control: string; variant: string; paired: PairedResult }) {
  const discordant = paired.onlyControl + paired.onlyVariant;
  const significant = paired.pValue !== null && paired.pValue < 0.05;
  return (
    <div className="flex flex-col gap-3">
      <p className="text-[13px] text-ink-muted">
        {plural(paired.tasks, "task")} ran under both {control} and {variant} (the first decided trace of each).{" "}
        {discordant === 0
          ? "No task went differently, so there is nothing to test yet."
          : `${plural(discordant, "task")} went differently.`}
      </p>
      <table className="w-full max-w-md border-collapse text-[13px]" aria-label={`Paired tasks: ${control} against ${variant}`}>
        <thead>
          <tr>
            <td />
            <th scope="col" className="px-3 py-1.5 text-right text-xs font-medium text-ink-faint">
              {variant} succeeded
            </th>
            <th scope="col" className="px-3 py-1.5 text-right text-xs font-medium text-ink-faint">
              {variant} failed
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line border-y border-line">
          <tr>
            <th scope="row" className="px-3 py-2 text-left text-xs font-medium text-ink-faint">
              {control} succeeded
            </th>
            <td className="px-3 py-2 text-right tabular-nums text-ink-muted">{formatNumber(paired.bothSuccess)}</td>
            <td className="px-3 py-2 text-right font-semibold tabular-nums text-ink" title="Discordant: only the control succeeded">
              {formatNumber(paired.onlyControl)}
            </td>
          </tr>
          <tr>
            <th scope="row" className="px-3 py-2 text-left text-xs font-medium text-ink-faint">
              {control} failed
            </th>
            <td className="px-3 py-2 text-right font-semibold tabular-nums text-ink" title="Discordant: only the variant succeeded">
              {formatNumber(paired.onlyVariant)}
            </td>
            <td className="px-3 py-2 text-right tabular-nums text-ink-muted">{formatNumber(paired.bothFail)}</td>
          </tr>
        </tbody>
      </table>
      <p className="flex flex-wrap items-center gap-2 text-[13px] text-ink">
        <span title="Exact McNemar test: two-sided binomial test on the discordant pairs with p = 0.5">
          McNemar exact p = <span className="font-semibold tabular-nums">{formatPValue(paired.pValue)}</span>
        </span>
        {paired.pValue === null ? null : significant ? (
          <Badge tone={paired.onlyVariant > paired.onlyControl ? "green" : "red"}>
            {paired.onlyVariant > paired.onlyControl ? `${variant} wins more tasks` : `${control} wins more tasks`} (p &lt; 0.05)
          </Badge>
        ) : (
          <Badge tone="gray">Not significant</Badge>
        )}
      </p>
    </div>
  );
}

/** What the sample can detect now and at the plan: the fixed-horizon design's numbers. */
export function PowerPanel({ power }: { power: PowerResult }) {
  return (
    <dl className="grid grid-cols-[minmax(0,12rem)_minmax(0,1fr)] gap-x-4 gap-y-2 text-[13px]">
      <dt className="text-ink-faint">Baseline (control)</dt>
      <dd className="tabular-nums text-ink">{formatRate(power.baseline)}</dd>
      <dt className="text-ink-faint">Units per variant now</dt>
      <dd className="tabular-nums text-ink">
        {formatNumber(power.unitsPerVariant)}
        {power.plannedUnitsPerVariant !== null ? (
          <span className="text-ink-muted"> of {formatNumber(power.plannedUnitsPerVariant)} planned</span>
        ) : null}
      </dd>
      <dt className="text-ink-faint">Planned MDE</dt>
      <dd className="tabular-nums text-ink">
        {power.minimumDetectableEffect === null ? "—" : formatRateChange(power.minimumDetectableEffect)}
      </dd>
      <dt className="text-ink-faint">Detectable now</dt>
      <dd className="tabular-nums text-ink">
        {power.mdeAtCurrentSample === null ? (
          <span className="text-ink-muted">No change is detectable yet with {formatNumber(power.unitsPerVariant)} units per variant.</span>
        ) : (
          <>
            {formatRateChange(power.mdeAtCurrentSample)}{" "}
            <span className="text-ink-muted">(smallest change found with {Math.round(power.power * 100)} % power)</span>
          </>
        )}
      </dd>
      {power.powerAtPlannedMde !== null ? (
        <>
          <dt className="text-ink-faint">Power for the planned MDE</dt>
          <dd className="tabular-nums text-ink">{Math.round(power.powerAtPlannedMde * 100)} %</dd>
        </>
      ) : null}
      <dt className="text-ink-faint">Test</dt>
      <dd className="text-ink-muted">
        α = {power.alpha} two-sided, power {Math.round(power.power * 100)} %
      </dd>
    </dl>
  );
}

/** The variants as defined, with the phase's weights, what each serves and what the traces ran. */
export function VariantsPanel({ experiment, results }: { experiment: ExperimentDefinition; results: ExperimentResults | undefined }) {
  const resultOf = new Map(results?.variants.map((variant) => [variant.key, variant]) ?? []);
  return (
    <ul className="divide-y divide-line">
      {experiment.variants.map((variant) => {
        const result = resultOf.get(variant.key);
        const versions = result?.byVersion.filter((entry) => entry.traces > 0) ?? [];
        return (
          <li key={variant.key} className="flex flex-col gap-1 px-4 py-3 sm:px-5">
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-[13px]">
              <span className="font-mono font-medium text-ink">{variant.key}</span>
              <span className="text-ink">{variant.name}</span>
              {variant.key === experiment.control ? <Badge tone="neutral">Control</Badge> : null}
              <span className="ml-auto tabular-nums text-ink-muted">{formatShare(result?.weight ?? variant.weight)}</span>
            </div>
            <p className="text-xs text-ink-muted">
              Serves{" "}
              {variant.target.kind === "version" ? (
                <Link href={versionHref(experiment.playbookId, variant.target.playbookVersion)} className="text-accent-ink hover:underline">
                  {targetLabel(variant.target)}
                </Link>
              ) : (
                targetLabel(variant.target)
              )}
              {result ? (
                <>
                  {" "}
                  · {plural(result.units, "unit")} · {plural(result.traces, "trace")}
                  {result.unknown > 0 ? ` (${formatNumber(result.unknown)} unknown, not rated)` : ""}
                  {result.crossovers > 0 ? ` · ${plural(result.crossovers, "crossover")} left out` : ""}
                </>
              ) : null}
            </p>
            {versions.length > 1 || (variant.target.kind === "latest" && versions.length > 0) ? (
              <p className="text-xs text-ink-faint">
                By version served at first exposure:{" "}
                {versions
                  .map(
                    (entry) =>
                      `${entry.playbookVersion === null ? "unknown" : `v${entry.playbookVersion}`} ${formatRate(entry.successRate)} (${formatNumber(entry.traces)})`,
                  )
                  .join(" · ")}
              </p>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

const METHOD_LABELS: Record<string, string> = {
  successRate: "Success rate",
  ci95: "Interval of a rate",
  analysis: "Analysis",
  difference: "Change vs control",
  adjustedPValue: "Adjusted p",
  chanceToBeatControl: "Chance to beat control",
  guardrails: "Guardrails",
  srm: "Sample ratio mismatch",
  power: "Power",
  design: "Design",
  paired: "Paired tasks",
  units: "Units",
  phases: "Phases",
};

/** Every method the server names, in words, with the multiplicity caveat first. */
export function MethodsNote({ methods, analysis }: { methods: Record<string, string>; analysis: ExperimentResults["analysis"] }) {
  const entries = Object.entries(methods);
  return (
    <div className="flex flex-col gap-3 text-[13px]">
      <p className="text-ink">
        This experiment is analysed <span className="font-medium">{analysis}</span>. The p-values are adjusted for multiple comparisons
        (Holm); the 95 % intervals are <span className="font-medium">not</span> adjusted, so with several variants an interval that just
        excludes zero can still go with a non-significant adjusted p.
      </p>
      <dl className="grid gap-x-4 gap-y-2 sm:grid-cols-[12rem_minmax(0,1fr)]">
        {entries.map(([key, text]) => (
          <div key={key} className="contents">
            <dt className="font-medium text-ink">{METHOD_LABELS[key] ?? key}</dt>
            <dd className="text-ink-muted">{text}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
