// `npm run bench [-- --quick] [-- --only <name>[,<name>…]] [-- --out <file>]`: measures import, the playbook page's queries,
// export, the compiled context, curation (applying deltas, version diffs, the duplicate check),
// tokens per reflection-and-curation cycle, trace ingestion and the first render, on embedded
// PGlite and PostgreSQL, and writes BENCHMARKS.md.
// A missed target is a finding, not a failure: the exit code is 1 only when something broke.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { exportBenchmarks, importFixtureBenchmark, importSynthetic, pageBenchmarks, TARGETS, type DatabasePlans } from "./database";
import { curationCorpus, type CurationCorpus } from "./curation-data";
import { contextBenchmarks, contextNotes } from "./context";
import { mcpBenchmarks, mcpNotes } from "./mcp";
import { agentsBenchmarks, agentsNotes, seedAgents, type AgentsPlan } from "./agents";
import { settleLeftoverWork } from "./repository";
import { curationBenchmarks, curationNotes, inProcessCurationBenchmarks } from "./curation";
import { experimentBenchmarks, experimentNotes } from "./experiments";
import { metricsBenchmarks, metricsNotes } from "./metrics";
import { completeSeeds, seedsNeeded, studioBenchmarks, studioNotes, type StudioPlans, type StudioSelection } from "./studio";
import { cycleBenchmark, cycleNotes, type CyclePlan } from "./cycle";
import { DEFAULT_POSTGRES_URL, openPgliteEngine, openPostgresEngine, type BenchEngine, type EngineName } from "./engines";
import type { RunPlan } from "./measure";
import { REPORT_FILE } from "./paths";
import { type Cleanups } from "./next-server";
import { renderBenchmark, RENDER_TARGET } from "./render";
import {
  cpuCheckMs,
  describeMachine,
  memoryCheckMs,
  formatFigure,
  formatMs,
  formatRate,
  loadAverage,
  renderReport,
  resultsTable,
  type BenchResult,
} from "./report";
import { sweepStaleTempDirs } from "./temp-dirs";
import { syntheticPlaybook, type SyntheticPlaybook } from "./synthetic";
import { traceBenchmarks, traceNotes, type TracePlans } from "./traces";
import { retentionBenchmarks, retentionNotes } from "./retention";

const BENCHMARKS = [
  "import",
  "page",
  "export",
  "context",
  "mcp",
  "curation",
  "cycle",
  "traces",
  "metrics",
  "experiments",
  "assign",
  "evolution",
  "experiment-page",
  "agents",
  "render",
  "retention",
  "soak",
] as const;
type BenchmarkName = (typeof BENCHMARKS)[number];
/** Run only when named with --only: the soak alone takes ten minutes per engine. */
const ON_REQUEST: readonly BenchmarkName[] = ["soak"];

const USAGE = `Usage: npm run bench [-- --quick] [-- --only <name>[,<name>…]] [-- --engine <pglite|postgresql>] [-- --out <file>]

  --quick        fewer runs: a smoke check, not figures to compare
  --out <file>   write the report there instead of BENCHMARKS.md
  --engine <e>   run the database benchmarks on one engine only: pglite or postgresql (default: both)
  --only <names> run only these benchmarks (comma-separated): import (318-bullet file), page (10k-bullet page queries),
                 export (10k bullets, four formats), context (the compiled context of 10k bullets,
                 and its 304), mcp (search_bullets over 10k bullets through the MCP transport), curation (a 50-operation delta on 10k bullets approved and edited,
                 version diffs, the duplicate check), cycle (tokens per reflection and curation
                 against the mock OpenAI server), traces (trace ingestion, one per call and
                 batched), metrics (the Evolution charts' data: 90 days by day over 100k traces and
                 1,000 versions, then with 100k runs), experiments (an experiment's results over 200k
                 traces), assign (assignment over HTTP, next start on port 3400), evolution and
                 experiment-page (their first render in Chromium, PGlite), agents (100 agents polling the
                 context and posting traces at once, next start on port 3450), render (first render of a
                 10k-bullet playbook in Chromium), retention (100k expired traces removed while an agent posts, PostgreSQL),
                 soak (the agents for 10 minutes, watching the server's memory; only with --only)

PostgreSQL: BENCH_POSTGRES_URL (default ${DEFAULT_POSTGRES_URL}); a fresh database is created and dropped.
Studio server rows: BENCH_APP_DIR serves (and builds, when stale) another checkout instead of this one;
BENCH_SERVER_NODE_ARGS adds flags to its node command (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof");
BENCH_SERVER_LOG=<file> appends every server's output to that file (e.g. with BENCH_SERVER_NODE_ARGS=--trace-gc).`;

interface Plans extends DatabasePlans {
  context: RunPlan;
  mcp: RunPlan;
  curation: RunPlan;
  cycle: CyclePlan;
  traces: TracePlans;
  metrics: RunPlan;
  experiments: RunPlan;
  studio: StudioPlans;
  agents: AgentsPlan;
  soak: AgentsPlan;
  render: RunPlan;
}

const FULL: Plans = {
  import: { warmup: 3, runs: 20 },
  page: { warmup: 5, runs: 30 },
  export: { warmup: 2, runs: 20 },
  context: { warmup: 5, runs: 30 },
  mcp: { warmup: 20, runs: 200 },
  curation: { warmup: 5, runs: 30 },
  cycle: { rounds: 5, tracesPerRound: 10 },
  traces: { single: { warmup: 20, runs: 300 }, batch100: { warmup: 3, runs: 30 }, batch1000: { warmup: 2, runs: 10 } },
  metrics: { warmup: 3, runs: 20 },
  experiments: { warmup: 3, runs: 20 },
  studio: {
    assignInProcess: { warmup: 50, runs: 500 },
    assignSerial: { concurrency: 1, warmup: 200, requests: 1_000 },
    assignConcurrent: { concurrency: 8, warmup: 200, requests: 4_000 },
    pages: { warmup: 2, runs: 10 },
  },
  agents: { agents: 100, seconds: 60, warmupS: 10, drainMaxS: 600, cachedPolls: { concurrency: 16, warmup: 500, requests: 5_000 } },
  soak: { agents: 100, seconds: 600, warmupS: 60, drainMaxS: 600 },
  render: { warmup: 2, runs: 10 },
};
const QUICK: Plans = {
  import: { warmup: 1, runs: 5 },
  page: { warmup: 2, runs: 5 },
  export: { warmup: 1, runs: 3 },
  context: { warmup: 2, runs: 5 },
  mcp: { warmup: 5, runs: 20 },
  curation: { warmup: 1, runs: 5 },
  cycle: { rounds: 1, tracesPerRound: 10 },
  traces: { single: { warmup: 5, runs: 20 }, batch100: { warmup: 1, runs: 3 }, batch1000: { warmup: 1, runs: 2 } },
  metrics: { warmup: 1, runs: 5 },
  experiments: { warmup: 1, runs: 5 },
  studio: {
    assignInProcess: { warmup: 10, runs: 100 },
    assignSerial: { concurrency: 1, warmup: 20, requests: 100 },
    assignConcurrent: { concurrency: 8, warmup: 20, requests: 400 },
    pages: { warmup: 1, runs: 3 },
  },
  agents: { agents: 100, seconds: 20, warmupS: 5, drainMaxS: 120, cachedPolls: { concurrency: 16, warmup: 100, requests: 1_000 } },
  soak: { agents: 100, seconds: 120, warmupS: 20, drainMaxS: 120 },
  render: { warmup: 1, runs: 3 },
};

class UsageError extends Error {}

const ENGINE_OPTIONS: Record<string, EngineName> = { pglite: "PGlite", postgresql: "PostgreSQL" };

function readArgs(argv: string[]): { quick: boolean; selected: Set<BenchmarkName>; engines: Set<EngineName>; out: string } {
  let values: { quick?: boolean; only?: string; engine?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        quick: { type: "boolean" },
        only: { type: "string" },
        engine: { type: "string" },
        out: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const only =
    values.only === undefined ? BENCHMARKS.filter((name) => !ON_REQUEST.includes(name)) : values.only.split(",").map((name) => name.trim());
  const unknown = only.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
  if (unknown.length > 0 || only.length === 0) {
    throw new UsageError(`Unknown benchmark "${unknown.join(", ")}"; choose from ${BENCHMARKS.join(", ")}.`);
  }
  const engine = values.engine === undefined ? undefined : ENGINE_OPTIONS[values.engine.trim().toLowerCase()];
  if (values.engine !== undefined && engine === undefined) {
    throw new UsageError(`Unknown engine "${values.engine}"; choose pglite or postgresql.`);
  }
  if (values.out !== undefined && values.out.trim() === "") throw new UsageError("--out needs a file name.");
  const out = values.out === undefined ? REPORT_FILE : path.resolve(values.out);
  const engines = new Set<EngineName>(engine ? [engine] : Object.values(ENGINE_OPTIONS));
  return { quick: values.quick ?? false, selected: new Set(only as BenchmarkName[]), engines, out };
}

/** Benchmarks that work on the synthetic 10,000-bullet playbook. */
const SYNTHETIC_READERS: readonly BenchmarkName[] = ["page", "export", "context", "mcp", "curation"];
/** Benchmarks against `next start` on an engine's seeded database. */
const STUDIO_BENCHMARKS: readonly BenchmarkName[] = ["assign", "evolution", "experiment-page", "agents", "soak"];
/** Benchmarks that need a database. */
const DATABASE_BENCHMARKS: readonly BenchmarkName[] = [
  "import",
  ...SYNTHETIC_READERS,
  "cycle",
  "traces",
  "metrics",
  "experiments",
  "retention",
  ...STUDIO_BENCHMARKS,
];

function plural(n: number, word: string) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

async function runOnEngine(
  engine: BenchEngine,
  selected: Set<BenchmarkName>,
  plans: Plans,
  synthetic: SyntheticPlaybook,
  corpus: CurationCorpus | null,
  cleanups: Cleanups,
  record: (result: BenchResult) => void,
): Promise<void> {
  console.log(`[bench] ${engine.version}`);
  if (selected.has("import")) await importFixtureBenchmark(engine, plans.import, record);
  if (SYNTHETIC_READERS.some((name) => selected.has(name))) {
    const playbookId = await importSynthetic(engine, synthetic, record); // null: the failure is recorded
    if (playbookId) {
      if (selected.has("page")) await pageBenchmarks(engine, synthetic, playbookId, plans.page, record);
      if (selected.has("export")) await exportBenchmarks(engine, synthetic, playbookId, plans.export, record);
      if (selected.has("context")) await contextBenchmarks(engine, synthetic, playbookId, plans.context, record);
      if (selected.has("mcp")) await mcpBenchmarks(engine, synthetic, playbookId, plans.mcp, record);
      // Last of these: it changes the playbook the others read.
      if (corpus) await curationBenchmarks(engine, corpus, playbookId, plans.curation, record);
    }
  }
  // Each on its own playbook. The cycle drains every due job, so it runs before trace ingestion
  // leaves thousands of reflector jobs queued.
  if (selected.has("cycle")) await cycleBenchmark(engine, plans.cycle, record);
  if (selected.has("traces")) await traceBenchmarks(engine, plans.traces, record);
  if (selected.has("retention")) await retentionBenchmarks(engine, record);
  // Issues 9 and 10: the seeds of the metrics and results rows also serve the studio server's rows,
  // which come last (on PGlite the server takes the database over).
  const metrics = selected.has("metrics") ? await metricsBenchmarks(engine, plans.metrics, record) : null;
  const experiment = selected.has("experiments") ? await experimentBenchmarks(engine, plans.experiments, record) : null;
  const selection: StudioSelection = {
    assign: selected.has("assign"),
    evolution: selected.has("evolution"),
    experimentPage: selected.has("experiment-page"),
  };
  const seeds = await completeSeeds(engine, { metrics, experiment }, seedsNeeded(engine, selection), record);
  // Issue 15: seeded while the bench holds the database, served after the studio rows.
  // The soak, after the minute of agents when both run, takes the same playbook on from there.
  const agents = selected.has("agents") || selected.has("soak") ? await seedAgents(engine, record) : null;
  if (STUDIO_BENCHMARKS.some((name) => selected.has(name))) await settleLeftoverWork(engine.db);
  await studioBenchmarks(engine, seeds, selection, plans.studio, cleanups, record);
  if (agents && selected.has("agents")) await agentsBenchmarks(engine, agents, plans.agents, cleanups, record);
  if (agents && selected.has("soak")) await agentsBenchmarks(engine, agents, plans.soak, cleanups, record, { soak: true });
}

/** Each engine in turn, fresh; an unreachable PostgreSQL is noted and skipped, not an error. */
async function runDatabaseBenchmarks(
  selected: Set<BenchmarkName>,
  plans: Plans,
  synthetic: SyntheticPlaybook,
  corpus: CurationCorpus | null,
  cleanups: Cleanups,
  record: (result: BenchResult) => void,
  engines: string[],
  wanted: Set<EngineName>,
): Promise<void> {
  const adminUrl = process.env.BENCH_POSTGRES_URL?.trim() || DEFAULT_POSTGRES_URL;
  const openers: [EngineName, () => Promise<BenchEngine | string>][] = [
    ["PGlite", () => openPgliteEngine()],
    [
      "PostgreSQL",
      async () => {
        const opening = await openPostgresEngine(adminUrl);
        return "unavailable" in opening ? opening.unavailable : opening.engine;
      },
    ],
  ];
  for (const [name, open] of openers.filter(([name]) => wanted.has(name))) {
    let engine: BenchEngine | string;
    try {
      engine = await open();
    } catch (error) {
      console.error(`[bench] could not open ${name}:`, error);
      engines.push(`${name}: failed to open`);
      record({
        kind: "error",
        benchmark: "Database benchmarks",
        engine: name,
        message: `Could not open ${name}: ${(error as Error).message}`,
      });
      continue;
    }
    if (typeof engine === "string") {
      console.log(`[bench] ${engine}; continuing without it.`);
      engines.push(`${name}: not measured. ${engine}`);
      record({ kind: "skipped", benchmark: "Database benchmarks", engine: name, reason: engine });
      continue;
    }
    const opened = engine;
    cleanups.add(opened.close);
    try {
      engines.push(
        name === "PGlite"
          ? `${opened.version}, in a fresh temp folder (removed afterwards)`
          : `${opened.version}, in a fresh database ace_bench_<timestamp> (dropped afterwards)`,
      );
      await runOnEngine(opened, selected, plans, synthetic, corpus, cleanups, record);
    } finally {
      await opened.close();
      cleanups.delete(opened.close);
    }
  }
}

/** The "How these were measured" section. */
function howMeasured(plans: Plans, synthetic: SyntheticPlaybook): string[] {
  const runsOf = (plan: RunPlan) => `${plural(plan.warmup, "warm-up")} + ${plural(plan.runs, "timed run")}`;
  const contentChars = [...synthetic.text.matchAll(/ :: (.*)$/gm)].map((match) => match[1]?.length ?? 0);
  const meanChars = Math.round(contentChars.reduce((sum, n) => sum + n, 0) / Math.max(1, contentChars.length));
  const signals = Object.entries(synthetic.signals)
    .filter(([signal]) => signal !== "untracked")
    .map(([signal, count]) => `${signal} ${count}`)
    .join(", ");
  return [
    `Each figure is wall-clock time (\`performance.now()\`) around one call, except the token counts ("tok") of the cycle rows. Warm-up runs come first and are not timed. ` +
      `p50 / p95 / max are nearest-rank percentiles (always a measured run); a target is met when p95 is at or below it ` +
      `(a throughput target: when the throughput is at or above it). ` +
      `With fewer than 20 runs, p95 is the maximum.`,
    `Runs: import ${runsOf(plans.import)}; page queries ${runsOf(plans.page)}; export ${runsOf(plans.export)} per format; ` +
      `compiled context ${runsOf(plans.context)} per variant; curation ${runsOf(plans.curation)} per benchmark (the duplicate check: see below); render ${runsOf(plans.render)}.`,
    `Database benchmarks call the services (server/playbooks, server/deltas, server/history, server/context, server/traces, ` +
      `server/runs) in this process with input parsed by the procedures' zod schemas: what a tRPC call does, minus HTTP and serialisation. Rows marked ` +
      `"in-process (no database)" time the pure ACE core (server/ace) once per run.`,
    `Import (target p95 ≤ ${formatMs(TARGETS.import.maxMs)}): the 318-bullet AppWorld playbook (ace-plain) into a new playbook, ` +
      `a new name every run, in a database that grows by one playbook per run.`,
    `Synthetic playbook: ${synthetic.bulletCount.toLocaleString("en")} bullets in ${synthetic.sectionNames.length} sections, ` +
      `seeded PRNG (same bytes every run), bullets of 60–400 characters (mean ${meanChars}) from a word list, ` +
      `ACE text with counters: ${signals}. "untracked" cannot occur: ACE text with counters carries them on every line.`,
    `Playbook page (target p95 ≤ ${formatMs(TARGETS.page.maxMs)}, issue 15): getPlaybook and the first page of listBullets ` +
      `(limit 200) issued together, as the server component of /playbooks/[id] prefetches them (on PGlite they queue ` +
      `on its single connection), with the playbook's state loaded first (untimed), as a server holds it once the playbook ` +
      `is used: lists (but for an update-time sort, or a search outside ASCII) are ordered from that state and read only ` +
      `what their page's rows hold beyond it. Rows marked · time each part alone; "the SQL list alone" is what a list ` +
      `costs with no state loaded (after a start).`,
    `Export (target p95 ≤ ${formatMs(TARGETS.export.maxMs)}, issue 15): exportPlaybook of the synthetic playbook in each format.`,
    ...contextNotes(plans.context),
    ...mcpNotes(plans.mcp),
    ...curationNotes(plans.curation),
    ...cycleNotes(plans.cycle),
    ...traceNotes(plans.traces),
    ...metricsNotes(plans.metrics),
    ...experimentNotes(plans.experiments),
    ...studioNotes(plans.studio),
    ...agentsNotes(plans.agents, plans.soak),
    ...retentionNotes(),
    `First render (target p95 ≤ ${formatMs(RENDER_TARGET.maxMs)}): \`next start -p 3200\` on a fresh DATA_DIR holding the ` +
      `synthetic playbook; Chromium (headless) opens /playbooks/<id>; time from navigation start until the first bullet's ` +
      `[id] is visible, taken in the page on the animation frame it appears in and confirmed by Playwright.`,
    `The machine may be shared (other builds and tests ran beside this one): compare runs by p50, and treat a single slow p95 with care.`,
  ];
}

async function main(): Promise<number> {
  const { quick, selected, engines: wanted, out } = readArgs(process.argv.slice(2));
  const plans = quick ? QUICK : FULL;
  const startedAt = new Date();
  const start = performance.now();
  const machine = describeMachine();
  const results: BenchResult[] = [];
  const engines: string[] = [];
  const record = (result: BenchResult) => {
    results.push(result);
    const figure =
      result.kind === "measured" || result.kind === "tokens"
        ? `p50 ${formatFigure(result.kind, result.summary.p50)}, p95 ${formatFigure(result.kind, result.summary.p95)}` +
          (result.kind === "measured" && result.throughput ? `, ${formatRate(result.throughput)}` : "")
        : result.kind.toUpperCase();
    console.log(`[bench] ${result.engine}: ${result.benchmark} — ${figure}`);
  };

  const cleanups: Cleanups = new Set();
  // Ctrl-C reaches this process twice under `npm run` (from the terminal and relayed by tsx): the
  // first signal starts the cleanup, later ones must not cut it short. It is bounded all the same.
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n[bench] ${signal}: stopping the server and removing temp data…`);
    setTimeout(() => process.exit(130), 30_000).unref();
    void Promise.allSettled([...cleanups].map((cleanup) => cleanup())).finally(() => process.exit(130));
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);

  for (const name of await sweepStaleTempDirs()) console.log(`[bench] removed ${name}, left behind by a run that did not finish`);
  const synthetic = syntheticPlaybook();
  const corpus = selected.has("curation") ? curationCorpus(synthetic) : null;
  if (DATABASE_BENCHMARKS.some((name) => selected.has(name))) {
    await runDatabaseBenchmarks(selected, plans, synthetic, corpus, cleanups, record, engines, wanted);
  }
  if (corpus) await inProcessCurationBenchmarks(corpus, plans.curation, record);
  if (selected.has("render")) (await renderBenchmark(synthetic, plans.render, cleanups)).forEach(record);

  const notes = howMeasured(plans, synthetic);
  const report = {
    startedAt,
    durationMs: performance.now() - start,
    machine,
    loadAtEnd: loadAverage(),
    cpuCheckAtEnd: cpuCheckMs(),
    memoryCheckAtEnd: memoryCheckMs(),
    mode: `${quick ? "quick (smoke check, few runs)" : "full"}${selected.size < BENCHMARKS.length ? `, only ${[...selected].join(", ")}` : ""}`,
    engines: engines.length ? engines : ["none (browser only)"],
    results,
    notes,
  };
  await writeFile(out, renderReport(report));
  console.log(`\n${resultsTable(results)}\n\nWritten to ${out}`);
  return results.some((result) => result.kind === "error") ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
    } else {
      console.error("[bench] failed:", error);
    }
    process.exit(1);
  },
);
