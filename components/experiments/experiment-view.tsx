"use client";
// /experiments/[key]: the results as an experimenter knows them from GrowthBook. The SRM banner
// comes first when the split is off (nothing below can be trusted then); then the header with the
// actions, the decision, the early and crossover notices, the headline, the results table per
// metric with interval bars around zero, the cumulative chart, the paired test, power, the
// variants, and the methods behind every figure.
import { keepPreviousData, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { Rocket } from "lucide-react";
import Link from "next/link";
import { useMemo, type ReactNode } from "react";
import { useCan } from "@/components/auth/session-context";
import { Badge } from "@/components/ui/badge";
import { Breadcrumb, DetailSection } from "@/components/ui/detail-parts";
import { formatNumber, plural } from "@/components/ui/format";
import { LoadFailed } from "@/components/ui/load-failed";
import { Notice } from "@/components/ui/notice";
import { ExactTime, RelativeTime } from "@/components/ui/relative-time";
import { historyHref } from "@/components/ui/routes";
import { Select } from "@/components/ui/select";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import { useTRPC } from "@/components/trpc/client";
import type { ExperimentDefinition, ExperimentResults } from "@/server/experiments/schemas";
import { CumulativeChart } from "./cumulative-chart";
import { ExperimentActions, RollbackOfferButton, rollbackTarget } from "./experiment-actions";
import { progressCaption, SampleProgress, StatusBadge } from "./experiment-badges";
import { MethodsNote, PairedPanel, PowerPanel, VariantsPanel } from "./experiment-panels";
import { experimentsHref, parsePhaseParam, resultsQueryInput, writePhaseParam } from "./experiment-url";
import { formatDifference, formatDifferenceInterval, formatPValue, formatShare } from "./format";
import { guardrailAlarms, headline, METRIC_META, pairedPanels, resultGroups } from "./prepare";
import { ResultsTable, type ColumnMethods } from "./results-table";

/** A running experiment gathers traces all the time: its results refresh while the page is open. */
const RUNNING_POLL_MS = 15_000;

export function ExperimentView({ experimentKey }: { experimentKey: string }) {
  const trpc = useTRPC();
  const canAct = useCan("experiment.manage");
  const { filters, update } = useUrlFilters(parsePhaseParam, writePhaseParam);
  const { data: experiment } = useSuspenseQuery(trpc.experiments.get.queryOptions({ key: experimentKey }));
  const running = experiment.status === "running";
  const results = useQuery({
    ...trpc.experiments.results.queryOptions(resultsQueryInput(experimentKey, filters.phase)),
    placeholderData: keepPreviousData,
    refetchInterval: running ? RUNNING_POLL_MS : false,
  });
  const playbook = useQuery(trpc.playbook.get.queryOptions({ playbookId: experiment.playbookId }));
  const data = results.data;
  const top = data ? headline(data) : null;
  const suggestedWinner = top && (top.kind === "winner" || top.kind === "leading") ? top.variant : null;

  return (
    <div className="flex flex-col gap-5 pb-16">
      {data?.srm.flagged ? <SrmBanner results={data} /> : null}

      <Header experiment={experiment}>
        {canAct ? (
          <ExperimentActions experiment={experiment} playbookVersion={playbook.data?.version ?? null} suggestedWinner={suggestedWinner} />
        ) : null}
      </Header>

      {experiment.decision ? (
        <DecisionNotice experiment={experiment} playbookVersion={playbook.data?.version ?? null} canAct={canAct} />
      ) : null}

      {experiment.phases.length > 1 ? (
        <PhasePicker
          experiment={experiment}
          phase={filters.phase ?? data?.phase?.number ?? null}
          onChange={(phase) => update({ phase }, "replace")}
        />
      ) : null}

      {experiment.status === "draft" ? (
        <Notice tone="info" title="Not started yet" announce={false}>
          Agents asking for a variant get none (reason “draft”) until the experiment starts. Results appear here once units are assigned and
          traces come in.
        </Notice>
      ) : results.isPending ? (
        <ResultsSkeleton />
      ) : results.isError && !data ? (
        <LoadFailed what="results" error={results.error} onRetry={() => void results.refetch()} />
      ) : data ? (
        <Results experiment={experiment} results={data} dimmed={results.isPlaceholderData} />
      ) : null}

      <DetailSection title="Variants" flush>
        <VariantsPanel experiment={experiment} results={data} />
      </DetailSection>

      <ForAgents experiment={experiment} />

      {data ? (
        <details className="group rounded-card border border-line bg-surface shadow-card">
          <summary className="flex min-h-12 cursor-pointer list-none items-center gap-2 px-4 py-2.5 text-sm font-semibold text-ink sm:px-5">
            Methods
            <span className="text-xs font-normal text-ink-faint">How every figure on this page is computed</span>
            <span aria-hidden className="ml-auto text-ink-faint transition-transform group-open:rotate-90">
              ›
            </span>
          </summary>
          <div className="border-t border-line px-4 py-4 sm:px-5">
            <MethodsNote methods={data.methods} analysis={data.analysis} />
          </div>
        </details>
      ) : null}
    </div>
  );
}

function Header({ experiment, children }: { experiment: ExperimentDefinition; children: ReactNode }) {
  return (
    <header className="flex flex-col gap-4 pt-6 md:flex-row md:items-start md:justify-between">
      <div className="min-w-0">
        <Breadcrumb items={[{ label: "Experiments", href: experimentsHref() }, { label: experiment.name }]} />
        <h1 className="break-words text-2xl font-semibold tracking-tight text-ink">{experiment.name}</h1>
        <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1.5 text-[13px] text-ink-muted">
          <StatusBadge status={experiment.status} decision={experiment.decision} />
          {experiment.archivedAt ? <Badge tone="gray">Archived</Badge> : null}
          <span className="font-mono text-xs">{experiment.key}</span>
          <span aria-hidden className="text-line-strong">
            ·
          </span>
          <span>
            Playbook{" "}
            <Link href={`/playbooks/${experiment.playbookId}`} className="font-medium text-ink hover:text-accent-ink hover:underline">
              {experiment.playbook}
            </Link>
          </span>
          {experiment.phase ? (
            <>
              <span aria-hidden className="text-line-strong">
                ·
              </span>
              <span>
                Phase <span className="font-medium tabular-nums text-ink">{experiment.phase.number}</span> since{" "}
                <RelativeTime date={new Date(experiment.phase.startedAt)} className="font-medium text-ink" />
              </span>
            </>
          ) : null}
          <span aria-hidden className="text-line-strong">
            ·
          </span>
          <span>
            Coverage <span className="font-medium tabular-nums text-ink">{formatShare(experiment.coverage)}</span>
          </span>
        </div>
        {experiment.hypothesis ? (
          <p className="mt-3 max-w-3xl text-sm leading-relaxed text-ink-muted">
            <span className="font-medium text-ink">Hypothesis:</span> {experiment.hypothesis}
          </p>
        ) : null}
      </div>
      <div className="shrink-0">{children}</div>
    </header>
  );
}

/** Red, above everything: when the split is off, no figure below can be trusted. */
function SrmBanner({ results }: { results: ExperimentResults }) {
  const observed = results.variants
    .map((variant, index) => `${variant.key} ${formatNumber(results.srm.observed[index] ?? variant.units)}`)
    .join(", ");
  const expected = results.variants.map((variant) => `${variant.key} ${formatShare(variant.weight)}`).join(", ");
  return (
    <Notice tone="danger" title="Sample ratio mismatch: the results cannot be trusted" className="mt-6">
      The units per variant ({observed}) do not match the weights ({expected}): χ² = {results.srm.chiSquare.toFixed(1)}, p{" "}
      {formatPValue(results.srm.pValue).startsWith("<") ? formatPValue(results.srm.pValue) : `= ${formatPValue(results.srm.pValue)}`}.
      Something between assignment and logging is broken (agents assigning on their own, traces lost for one variant, bots). Find and fix it
      before reading any figure on this page.
    </Notice>
  );
}

function DecisionNotice({
  experiment,
  playbookVersion,
  canAct,
}: {
  experiment: ExperimentDefinition;
  playbookVersion: number | null;
  canAct: boolean;
}) {
  const decision = experiment.decision!;
  const offer =
    decision.action === "ship" && decision.variant && decision.rolledBackToVersion === null
      ? rollbackTarget(experiment, decision.variant, playbookVersion)
      : null;
  return (
    <Notice
      tone={decision.action === "ship" ? "success" : "info"}
      announce={false}
      title={decision.action === "ship" ? `Shipped variant ${decision.variant}` : "Stopped without shipping a variant"}
      actions={
        offer !== null && canAct && decision.variant ? (
          <RollbackOfferButton experiment={experiment} variant={decision.variant} version={offer} />
        ) : undefined
      }
    >
      By {decision.by}, <ExactTime date={new Date(decision.at)} />.{decision.note ? <span className="block">“{decision.note}”</span> : null}
      {decision.rolledBackToVersion !== null ? (
        <span className="block">
          The playbook was rolled back to version {decision.rolledBackToVersion}:{" "}
          <Link href={historyHref(experiment.playbookId)} className="font-medium underline">
            see its history
          </Link>
          .
        </span>
      ) : offer !== null ? (
        <span className="block">
          Variant {decision.variant} pins version {offer}; the playbook is at version {playbookVersion}. Roll it back to make the winner
          what agents get without the experiment.
        </span>
      ) : null}
    </Notice>
  );
}

function PhasePicker({
  experiment,
  phase,
  onChange,
}: {
  experiment: ExperimentDefinition;
  phase: number | null;
  onChange: (phase: number | null) => void;
}) {
  const current = experiment.phase?.number ?? null;
  return (
    <div className="flex flex-wrap items-center gap-3 text-[13px] text-ink-muted">
      <Select<string>
        label="Phase"
        prefix="Phase"
        className="w-full sm:w-64"
        value={String(phase ?? current ?? 1)}
        onValueChange={(value) => onChange(Number(value) === current ? null : Number(value))}
        options={[...experiment.phases].reverse().map((p) => ({
          value: String(p.number),
          label: `${p.number}${p.number === current ? " (current)" : ""}`,
          hint: p.weights.map(formatShare).join(" / "),
          textValue: String(p.number),
        }))}
      />
      <span>Each phase has its own seed and split and is analysed on its own; phases are never pooled.</span>
    </div>
  );
}

function Results({ experiment, results, dimmed }: { experiment: ExperimentDefinition; results: ExperimentResults; dimmed: boolean }) {
  const groups = useMemo(() => resultGroups(results), [results]);
  const top = headline(results);
  const alarms = guardrailAlarms(results);
  const paired = pairedPanels(results);
  const columnMethods: ColumnMethods = {
    value: `${results.methods.successRate ?? ""} ${results.methods.ci95 ?? ""}`.trim(),
    difference: results.methods.difference ?? "",
    pValue: results.methods.difference ?? "",
    adjustedPValue: results.methods.adjustedPValue ?? "",
    chance: results.methods.chanceToBeatControl ?? "",
    guardrails: results.methods.guardrails ?? "",
  };
  const power = results.power ?? results.comparisons[0]?.power ?? null;
  return (
    <div className={dimmed ? "flex flex-col gap-5 opacity-60 transition-opacity" : "flex flex-col gap-5 transition-opacity"}>
      {results.early ? (
        <Notice tone="info" title="Early results" announce={false}>
          <span className="block">
            The planned sample is not reached yet. This is a fixed-horizon design: read the p-values once every variant has the planned
            units; looking earlier and stopping on a good day inflates false positives.
          </span>
          <SampleProgress
            className="mt-2 max-w-md"
            fraction={results.progress.fraction}
            caption={progressCaption(results.progress.unitsPerVariant, results.progress.plannedUnitsPerVariant)}
          />
        </Notice>
      ) : null}
      {results.crossovers > 0 ? (
        <Notice tone="warning" title={`${plural(results.crossovers, "unit")} crossed over`} announce={false}>
          These units were seen in more than one variant (an agent that ignored its assignment, or a unit id reused). They count in the
          variant of their first exposure and are left out of the analysis.
        </Notice>
      ) : null}
      {alarms.length > 0 ? (
        <Notice tone="warning" title="A guardrail got worse" announce={false}>
          {alarms
            .map(
              (alarm) => `Variant ${alarm.variant}: ${alarm.metrics.map((metric) => METRIC_META[metric].label.toLowerCase()).join(", ")}`,
            )
            .join("; ")}{" "}
          significantly higher than the control (Welch&apos;s t-test, p &lt; 0.05).
        </Notice>
      ) : null}

      <Headline experiment={experiment} results={results} top={top} />

      <DetailSection
        title="Results"
        flush
        actions={
          <span className="text-xs text-ink-faint">
            {results.analysis} analysis · updated <RelativeTime date={new Date(results.computedAt)} />
          </span>
        }
      >
        <div className="flex flex-col divide-y divide-line">
          {groups.map((group) => (
            <section key={group.metric} aria-label={group.meta.label} className="py-2">
              <h3 className="flex flex-wrap items-baseline gap-x-2 px-4 pb-1 pt-2 text-[13px] font-semibold text-ink sm:px-5">
                {group.meta.label}
                {group.primary ? <Badge tone="accent">Primary</Badge> : <Badge tone="neutral">Guardrail</Badge>}
                <span className="text-xs font-normal text-ink-faint">
                  {group.meta.unit}; {group.meta.better === "higher" ? "higher is better" : "lower is better"}
                </span>
              </h3>
              <ResultsTable group={group} methods={columnMethods} analysis={results.analysis} />
            </section>
          ))}
        </div>
        <p className="border-t border-line px-4 py-2.5 text-xs text-ink-muted sm:px-5">
          Intervals are 95 % and not adjusted for multiple comparisons; p-values of the success rate are Holm-adjusted over all comparisons
          with the control. Hover a column&apos;s name for its method, or open Methods below.
          {results.tracesWithoutUnit > 0
            ? ` ${plural(results.tracesWithoutUnit, "trace")} came without a unitId and count as units of their own.`
            : ""}
        </p>
      </DetailSection>

      <DetailSection title="Success rate over time (cumulative)">
        <CumulativeChart results={results} />
      </DetailSection>

      <div className="grid gap-5 lg:grid-cols-2">
        <DetailSection title="Paired tasks (McNemar)">
          {paired.length === 0 ? (
            <p className="text-[13px] text-ink-muted">
              No task has run under both the control and a variant yet. Send the same <span className="font-mono text-xs">taskId</span> with
              traces of each variant (a benchmark task set, as AppWorld or FiNER runs are) and the paired test appears here.
            </p>
          ) : (
            <div className="flex flex-col gap-5">
              {paired.map((panel) => (
                <PairedPanel key={panel.variant} control={panel.control} variant={panel.variant} paired={panel.paired} />
              ))}
            </div>
          )}
        </DetailSection>
        <DetailSection title="Power">
          {power ? (
            <PowerPanel power={power} />
          ) : (
            <p className="text-[13px] text-ink-muted">Power figures appear once the control has decided traces.</p>
          )}
          {results.comparisons.length > 1 ? (
            <p className="mt-3 text-xs text-ink-faint">
              Figures for the first comparison ({results.comparisons[0]?.variant} vs {results.control}).
            </p>
          ) : null}
        </DetailSection>
      </div>
    </div>
  );
}

function Headline({
  experiment,
  results,
  top,
}: {
  experiment: ExperimentDefinition;
  results: ExperimentResults;
  top: ReturnType<typeof headline>;
}) {
  const control = results.control;
  let text: ReactNode;
  let tone: "green" | "red" | "gray" = "gray";
  switch (top.kind) {
    case "winner":
      tone = "green";
      text = (
        <>
          Variant <span className="font-semibold">{top.variant}</span> beats control {control}:{" "}
          {formatDifference("successRate", top.difference)} in success rate (95 % CI {formatDifferenceInterval("successRate", top.ci95)}),
          adjusted p {formatPValue(top.adjustedPValue)}.
        </>
      );
      break;
    case "loser":
      tone = "red";
      text = (
        <>
          Variant <span className="font-semibold">{top.variant}</span> does worse than control {control}:{" "}
          {formatDifference("successRate", top.difference)} (95 % CI {formatDifferenceInterval("successRate", top.ci95)}), adjusted p{" "}
          {formatPValue(top.adjustedPValue)}.
        </>
      );
      break;
    case "leading":
      text = (
        <>
          No significant difference yet. Variant <span className="font-semibold">{top.variant}</span> leads by{" "}
          {formatDifference("successRate", top.difference)}, which could still be chance.
        </>
      );
      break;
    case "no-data":
      text = <>No decided traces to compare yet: agents assign units and report outcomes, then the comparison appears here.</>;
      break;
  }
  return (
    <section
      aria-label="Summary"
      className="flex flex-col gap-3 rounded-card border border-line bg-surface px-4 py-4 shadow-card sm:flex-row sm:items-center sm:px-5"
    >
      <div className="min-w-0 flex-1">
        <p className="text-sm leading-relaxed text-ink">{text}</p>
        {results.srm.flagged ? (
          <p className="mt-1 text-xs font-medium text-danger">
            Sample ratio mismatch: do not act on this comparison until the split is fixed.
          </p>
        ) : top.kind === "winner" && results.early ? (
          <p className="mt-1 text-xs text-amber-900">Early: the planned sample is not reached, so this may not hold.</p>
        ) : null}
      </div>
      <div className="flex shrink-0 flex-wrap items-center gap-2">
        {top.kind === "winner" ? (
          <Badge tone={tone}>
            <Rocket aria-hidden /> Significant
          </Badge>
        ) : top.kind === "loser" ? (
          <Badge tone={tone}>Significantly worse</Badge>
        ) : null}
        <SampleProgress
          className="w-56"
          fraction={results.progress.fraction}
          caption={progressCaption(
            results.progress.unitsPerVariant,
            results.progress.plannedUnitsPerVariant ?? experiment.plannedUnitsPerVariant,
          )}
        />
      </div>
    </section>
  );
}

function ResultsSkeleton() {
  return (
    <LoadingStatus label="Loading results…" className="flex flex-col gap-5">
      <Skeleton className="h-20 w-full rounded-card" />
      <Skeleton className="h-72 w-full rounded-card" />
      <Skeleton className="h-64 w-full rounded-card" />
    </LoadingStatus>
  );
}

/** How an agent takes part, with this experiment's key filled in. */
function ForAgents({ experiment }: { experiment: ExperimentDefinition }) {
  const key = encodeURIComponent(experiment.key);
  const playbook = encodeURIComponent(experiment.playbook);
  return (
    <DetailSection title="For agents">
      <div className="flex flex-col gap-2 text-[13px] text-ink-muted">
        <p>
          Ask for a unit&apos;s variant, or fetch its variant&apos;s playbook directly; then report traces with{" "}
          <span className="font-mono text-xs">experiment</span>, <span className="font-mono text-xs">unitId</span> (and{" "}
          <span className="font-mono text-xs">taskId</span> for paired runs). A GrowthBook SDK given{" "}
          <span className="font-mono text-xs">GET /api/v1/experiments/{key}</span> assigns the same variants offline (hash version 2, seed{" "}
          <span className="font-mono text-xs">{experiment.seed}</span>).
        </p>
        <pre className="overflow-x-auto rounded-lg bg-subtle px-3 py-2 font-mono text-xs leading-relaxed text-ink">
          {`POST /api/v1/experiments/${key}/assign  {"unitId": "agent-42"}\nGET  /api/v1/playbooks/${playbook}/context?experiment=${key}&unitId=agent-42\nPOST /api/v1/traces  {"playbook": ${JSON.stringify(experiment.playbook)}, "experiment": ${JSON.stringify(experiment.key)}, "unitId": "agent-42", "task": "…", "outcome": "success"}`}
        </pre>
      </div>
    </DetailSection>
  );
}
