// A playbook's metrics over time (the Evolution tab and GET /api/v1/playbooks/{name}/metrics) and
// the studio overview: the repositories (repositories/) aggregate in SQL; this resolves the playbook and
// the range, adds rates and Wilson intervals, and shapes the answer.
import { wilsonInterval } from "@/server/ace/stats";
import { type Db, type Tx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import { readSettings } from "@/server/playbooks/manage";
import { bucketRange, bucketStarts, carryForward, previousRange, type BucketRange } from "./buckets";
import * as deltaRepo from "./repositories/deltas";
import * as playbookRepo from "./repositories/playbooks";
import * as runRepo from "./repositories/runs";
import { readSnapshot } from "./repositories/sql";
import * as traceRepo from "./repositories/traces";
import * as versionRepo from "./repositories/versions";
import {
  LLM_ROLES,
  MAX_VERSIONS,
  MOVERS_LIMIT,
  resolveRange,
  type ChurnBucket,
  type CounterBucket,
  type LlmBucket,
  type LlmTotals,
  type MetricsQuery,
  type MetricsResult,
  type OutcomeBucket,
  type OutcomeTotals,
  type OverviewResult,
  type OverviewRow,
  type ReviewBucket,
  type ReviewTotals,
  type VariantSeries,
  type VersionFiguresResult,
  type VersionOrigin,
  type VersionPoint,
} from "./schemas";

export type PlaybookRef = { playbookId: string } | { name: string };

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

async function resolvePlaybook(db: Db | Tx, ref: PlaybookRef): Promise<playbookRepo.PlaybookRow> {
  // A name from a URL path may arrive still percent-encoded or already decoded: try it as given first.
  const playbook =
    "playbookId" in ref
      ? await playbookRepo.findPlaybookById(db, ref.playbookId)
      : await playbookRepo.findPlaybookByNames(db, [...new Set([ref.name, safeDecode(ref.name)])]);
  if (!playbook) throw notFound("playbookId" in ref ? "The playbook" : `The playbook "${ref.name}"`);
  return playbook;
}

/** A rate and its Wilson interval; null for both when there is nothing to rate. */
function rated(successes: number, trials: number): { rate: number | null; ci95: [number, number] | null } {
  return { rate: trials === 0 ? null : successes / trials, ci95: wilsonInterval(successes, trials) };
}

const iso = (time: Date) => time.toISOString();

function outcomeTotals(row: traceRepo.OutcomeRow): OutcomeTotals {
  const { rate, ci95 } = rated(row.success, row.success + row.failure);
  return {
    traces: row.traces,
    success: row.success,
    failure: row.failure,
    unknown: row.unknown,
    successRate: rate,
    ci95,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    costUsd: row.costUsd,
    p50DurationMs: row.p50DurationMs,
    p95DurationMs: row.p95DurationMs,
  };
}

/** Quantiles are computed for the whole series only (see traceRepo.outcomes): a variant's are null. */
function variantTotals(row: traceRepo.OutcomeRow): OutcomeTotals {
  return { ...outcomeTotals(row), p50DurationMs: null, p95DurationMs: null };
}

function originOf(row: { deltaOrigin: string | null; contentChanged: boolean; countersChanged: boolean }): VersionOrigin {
  if (row.deltaOrigin) return row.deltaOrigin as VersionOrigin;
  return row.contentChanged || row.countersChanged ? "import" : "settings";
}

function versionPoint(row: versionRepo.VersionRow): VersionPoint {
  return {
    version: row.version,
    createdAt: iso(row.createdAt),
    origin: originOf(row),
    author: row.author,
    reason: row.reason,
    deltaId: row.deltaId,
    contentChanged: row.contentChanged,
    countersChanged: row.countersChanged,
    operations: row.operations,
    activeBullets: row.activeBullets,
    archivedBullets: row.archivedBullets,
    sections: row.sections.map(({ id, name, activeBullets }) => ({ id, name, activeBullets })),
    helpful: row.helpful,
    harmful: row.harmful,
    neutral: row.neutral,
    tokens: row.tokens,
  };
}

interface OutcomeSeries {
  totals: OutcomeTotals;
  outcomes: OutcomeBucket[];
  byVariant: VariantSeries[];
  agent: { totals: LlmTotals; buckets: LlmBucket[] };
}

function agentFigures(row: traceRepo.OutcomeRow): Omit<LlmTotals, "role"> {
  return {
    runs: row.traces,
    failed: null,
    retried: null,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    costUsd: row.costUsd,
    uncosted: row.uncosted,
    p50LatencyMs: row.p50DurationMs,
    p95LatencyMs: row.p95DurationMs,
  };
}

function outcomeSeries(rows: traceRepo.OutcomeRow[]): OutcomeSeries {
  const whole = rows.filter((row) => row.whole);
  const total = whole.find((row) => row.start === null);
  if (!total) throw new Error("The outcomes query returned no totals row.");
  const buckets = whole.filter((row): row is traceRepo.OutcomeRow & { start: Date } => row.start !== null);
  const variants = new Map<string, VariantSeries>();
  for (const row of rows) {
    if (row.whole || row.variant === null) continue;
    let series = variants.get(row.variant);
    if (!series) {
      series = { variant: row.variant, totals: variantTotals(row), outcomes: [] };
      variants.set(row.variant, series);
    }
    if (row.start === null) series.totals = variantTotals(row);
    else series.outcomes.push({ start: iso(row.start), ...variantTotals(row) });
  }
  return {
    totals: outcomeTotals(total),
    outcomes: buckets.map((row) => ({ start: iso(row.start), ...outcomeTotals(row) })),
    byVariant: [...variants.values()],
    agent: {
      totals: { role: "agent", ...agentFigures(total) },
      buckets: buckets.map((row) => ({ start: iso(row.start), role: "agent", ...agentFigures(row) })),
    },
  };
}

function counterSeries(range: BucketRange, rows: versionRepo.CounterRow[]): CounterBucket[] {
  const starts = bucketStarts(range);
  type Level = Omit<CounterBucket, "start">;
  const none: Level = { version: null, helpful: null, harmful: null, neutral: null };
  const level = (row: versionRepo.CounterRow): Level => ({
    version: row.version,
    helpful: row.helpful,
    harmful: row.harmful,
    neutral: row.neutral,
  });
  const before = rows.find((row) => row.start === null);
  const recorded = new Map(rows.flatMap((row) => (row.start ? [[row.start.getTime(), level(row)] as const] : [])));
  return carryForward(starts, recorded, before ? level(before) : none).map((value, index) => ({
    start: iso(starts[index] as Date),
    ...value,
  }));
}

function churnSeries(range: BucketRange, rows: versionRepo.ChurnRow[]): ChurnBucket[] {
  const byStart = new Map<number, ChurnBucket>();
  const starts = bucketStarts(range);
  for (const start of starts) byStart.set(start.getTime(), { start: iso(start), operations: {}, byOrigin: {} });
  for (const row of rows) {
    const bucket = byStart.get(row.start.getTime());
    if (!bucket) continue;
    const type = row.type as keyof ChurnBucket["operations"];
    // Versions without a delta that record operations are imports (a settings change records none).
    const origin = (row.deltaOrigin ?? "import") as VersionOrigin;
    bucket.operations[type] = (bucket.operations[type] ?? 0) + row.count;
    const ofOrigin = (bucket.byOrigin[origin] ??= {});
    ofOrigin[type] = (ofOrigin[type] ?? 0) + row.count;
  }
  return starts.map((start) => byStart.get(start.getTime()) as ChurnBucket);
}

function reviewSeries(rows: deltaRepo.ReviewRow[]): { buckets: ReviewBucket[]; byOrigin: ReviewTotals[] } {
  const buckets: ReviewBucket[] = [];
  const byOrigin: ReviewTotals[] = [];
  for (const row of rows) {
    const { start, p90DecisionMs, ...fields } = row;
    const counts = { ...fields, origin: row.origin as ReviewBucket["origin"] };
    if (start) {
      buckets.push({ start: iso(start), ...counts });
      continue;
    }
    const accepted = row.approved + row.autoApplied;
    const { rate, ci95 } = rated(accepted, accepted + row.rejected);
    byOrigin.push({
      ...counts,
      p90DecisionMs,
      acceptanceRate: rate,
      ci95,
      autoAppliedShare: row.proposed === 0 ? null : row.autoApplied / row.proposed,
    });
  }
  return { buckets, byOrigin };
}

function llmSeries(rows: runRepo.RunRow[], agent: OutcomeSeries["agent"]): { buckets: LlmBucket[]; byRole: LlmTotals[] } {
  const buckets: LlmBucket[] = [];
  const byRole: LlmTotals[] = [];
  for (const { start, ...fields } of rows) {
    if (start) buckets.push({ start: iso(start), ...fields });
    else byRole.push(fields);
  }
  byRole.push(agent.totals);
  buckets.push(...agent.buckets);
  const order = (role: string) => LLM_ROLES.indexOf(role as (typeof LLM_ROLES)[number]);
  buckets.sort((a, b) => order(a.role) - order(b.role) || a.start.localeCompare(b.start));
  byRole.sort((a, b) => order(a.role) - order(b.role));
  return { buckets, byRole };
}

/** Everything the Evolution tab draws, for one playbook over a range. */
export async function playbookMetrics(db: Db, ref: PlaybookRef, query: MetricsQuery): Promise<MetricsResult> {
  const { from, to, bucket } = resolveRange(query);
  const range = bucketRange(from, to, bucket);
  const filter = { experiment: query.experiment, variant: query.variant };
  const { playbook, rows } = await readSnapshot(db, async (tx) => {
    const playbook = await resolvePlaybook(tx, ref);
    // One connection: the reads run one after another, each a few milliseconds.
    const rows = {
      outcomes: await traceRepo.outcomes(tx, playbook.id, range, filter),
      versions: await versionRepo.versionsInRange(tx, playbook.id, range, { contentOnly: query.contentOnly, limit: MAX_VERSIONS }),
      before: await versionRepo.versionBefore(tx, playbook.id, range.start, query.contentOnly),
      counters: await versionRepo.counterLevels(tx, playbook.id, range),
      churn: await versionRepo.churn(tx, playbook.id, range),
      movers: await deltaRepo.movers(tx, playbook.id, range, MOVERS_LIMIT),
      review: await deltaRepo.review(tx, playbook.id, range),
      runs: await runRepo.runs(tx, playbook.id, range),
      scores: await versionRepo.scoreDistribution(
        tx,
        playbook.id,
        query.scoresAt === undefined ? { before: range.end } : { version: query.scoresAt },
      ),
      earliest: await playbookRepo.earliestActivity(tx, playbook.id),
    };
    return { playbook, rows };
  });
  const {
    outcomes: outcomeRows,
    versions,
    before,
    counters: counterRows,
    churn: churnRows,
    movers: moverRows,
    review: reviewRows,
    runs: runRows,
    scores,
    earliest,
  } = rows;
  if (query.scoresAt !== undefined && !scores) {
    throw new AppError("INVALID_INPUT", `scoresAt: the playbook has no version ${query.scoresAt} (or no figures for it).`, {
      details: { parameter: "scoresAt" },
    });
  }
  const series = outcomeSeries(outcomeRows);
  return {
    playbook: playbook.name,
    playbookId: playbook.id,
    bucket,
    from: iso(range.start),
    to: iso(range.end),
    timezone: "UTC",
    experiment: query.experiment ?? null,
    variant: query.variant ?? null,
    contentOnly: query.contentOnly,
    earliest: earliest ? iso(earliest) : null,
    tokenBudget: readSettings(playbook.settings).tokenBudget,
    totals: series.totals,
    outcomes: series.outcomes,
    outcomesByVariant: series.byVariant,
    versions: versions.rows.map(versionPoint),
    versionsOmitted: versions.total - versions.rows.length,
    previousVersion: before ? versionPoint(before) : null,
    counters: counterSeries(range, counterRows),
    scores: scores ? { version: scores.version, distribution: scores.scores } : null,
    movers: {
      rose: moverRows.filter((row) => row.scoreChange > 0),
      fell: moverRows.filter((row) => row.scoreChange < 0).reverse(),
    },
    churn: churnSeries(range, churnRows),
    review: reviewSeries(reviewRows),
    llm: llmSeries(runRows, series.agent),
  };
}

/** One version's stored figures, with its score distribution. */
export async function versionFigures(db: Db, input: { playbookId: string; version: number }): Promise<VersionFiguresResult> {
  const row = await versionRepo.versionFigures(db, input.playbookId, input.version);
  if (!row) throw notFound(`Version ${input.version} of the playbook (or its figures)`);
  return { ...versionPoint(row), scores: row.scores };
}

/** One row per playbook: success rate per bucket over the range, against the range before it. */
export async function studioOverview(db: Db, query: { from?: Date; to?: Date; bucket: MetricsQuery["bucket"] }): Promise<OverviewResult> {
  const { from, to, bucket } = resolveRange(query);
  const range = bucketRange(from, to, bucket);
  const previous = previousRange(range);
  const rows = await readSnapshot(db, (tx) => traceRepo.overview(tx, range, previous.start));
  const playbooks = new Map<string, OverviewRow>();
  for (const row of rows) {
    let entry = playbooks.get(row.playbookId);
    if (!entry) {
      entry = {
        playbookId: row.playbookId,
        name: row.name,
        traces: 0,
        success: 0,
        failure: 0,
        unknown: 0,
        successRate: null,
        ci95: null,
        previousSuccessRate: null,
        previousTraces: 0,
        change: null,
        pendingDeltas: row.pendingDeltas,
        series: [],
      };
      playbooks.set(row.playbookId, entry);
    }
    if (row.start === null) {
      entry.previousTraces = row.traces;
      entry.previousSuccessRate = rated(row.success, row.success + row.failure).rate;
      continue;
    }
    entry.traces += row.traces;
    entry.success += row.success;
    entry.failure += row.failure;
    entry.unknown += row.unknown;
    entry.series.push({ start: iso(row.start), traces: row.traces, successRate: rated(row.success, row.success + row.failure).rate });
  }
  for (const entry of playbooks.values()) {
    const { rate, ci95 } = rated(entry.success, entry.success + entry.failure);
    entry.successRate = rate;
    entry.ci95 = ci95;
    entry.change = rate === null || entry.previousSuccessRate === null ? null : rate - entry.previousSuccessRate;
  }
  return {
    bucket,
    from: iso(range.start),
    to: iso(range.end),
    previousFrom: iso(previous.start),
    timezone: "UTC",
    playbooks: [...playbooks.values()],
  };
}
