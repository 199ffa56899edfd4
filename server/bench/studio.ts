// What a person and an agent meet over HTTP, on the production build (`next start`, port 3400) serving
// the bench's seeded database: assignment through POST /api/v1/experiments/{key}/assign under closed-
// loop load (issue 10), and in Chromium the first render of the Evolution tab (issue 9) and of an
// experiment's results page (issue 10). Assignment runs on both engines; the pages on PGlite, the
// default install, over the same seeds as the metrics and results rows.
import { chromium, type Browser, type Page } from "@playwright/test";
import { systemWho } from "@/server/audit/record";
import { createApiKey } from "@/server/apikeys/service";
import { assignUnit } from "@/server/experiments/assignment";
import { ACTOR, CALL_TIMEOUT_MS, check, guarded, recordSamples, type RecordResult } from "./database";
import type { BenchEngine } from "./engines";
import { seedExperiment, type ExperimentSeed } from "./experiments";
import { closedLoop, type LoadPlan, type LoadRequest } from "./http-load";
import { measure, withTimeout, type RunPlan } from "./measure";
import { seedMetricsPlaybook, seedMetricsRuns, type MetricsSeed } from "./metrics";
import { ensureBuild, portInUse, startServer, waitUntilServing, type Cleanups, type Server } from "./next-server";
import { CHROMIUM, CHROMIUM_ARGS } from "@/server/testing/chromium";
import { formatMs, formatRate, type RateTarget, type Target } from "./report";
import { percentile } from "./stats";

export const STUDIO_PORT = 3400;
export const ASSIGN_TARGETS = { latency: { maxMs: 5 } satisfies Target, rate: { minPerSecond: 1_000 } satisfies RateTarget };
export const PAGE_TARGET: Target = { maxMs: 2_000 };
const LOAD_TIMEOUT_MS = 60_000;
const SETTLE_MS = 1_500;

export interface StudioPlans {
  /** assignUnit called in this process, without HTTP. */
  assignInProcess: RunPlan;
  /** One agent at a time: the latency row. */
  assignSerial: LoadPlan;
  /** Agents at once: the throughput row. */
  assignConcurrent: LoadPlan;
  pages: RunPlan;
}

export interface StudioSelection {
  assign: boolean;
  evolution: boolean;
  experimentPage: boolean;
}

export interface StudioSeeds {
  metrics: MetricsSeed | null;
  experiment: ExperimentSeed | null;
}

const ENGINE_LABEL = (engine: BenchEngine) => `${engine.name} (next start)`;

// ---- Assignment ---------------------------------------------------------------------------------

/** A closed loop against the server, with its throughput and the server's CPU time per request (warm-up included). */
async function loadWithCpu(
  server: Server,
  plan: LoadPlan,
  request: () => LoadRequest,
  check: (status: number, body: string) => void,
  benchmark: string,
  unit: string,
) {
  const cpuBefore = server.cpuMs();
  const result = await withTimeout(closedLoop(server.origin, plan, request, check), 300_000, benchmark);
  const cpuAfter = server.cpuMs();
  const cpuPerCall = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / (plan.warmup + plan.requests);
  return { result, cpuPerCall, throughput: { perSecond: (result.latencies.length * 1000) / result.elapsedMs, unit } };
}

async function assignmentRows(
  server: Server,
  engine: BenchEngine,
  key: string,
  apiKey: string,
  plans: StudioPlans,
  record: RecordResult,
): Promise<void> {
  const engineLabel = ENGINE_LABEL(engine);
  let unit = 0;
  const stamp = Date.now().toString(36);
  const request = () => ({
    method: "POST" as const,
    path: `/api/v1/experiments/${encodeURIComponent(key)}/assign`,
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    // Every call a unit never seen before: each one records its first exposure (the write path).
    body: JSON.stringify({ unitId: `http-${stamp}-${unit++}` }),
  });
  const checkAnswer = (status: number, body: string) => {
    if (status !== 200) throw new Error(`POST …/assign answered HTTP ${status}: ${body.slice(0, 300)}`);
    const answer = JSON.parse(body) as { inExperiment?: boolean; variant?: string | null; firstExposure?: boolean };
    if (!answer.inExperiment || !answer.variant || !answer.firstExposure) throw new Error(`Unexpected assignment: ${body.slice(0, 300)}`);
  };
  const variants: { label: string; plan: LoadPlan; target: "latency" | "rate" }[] = [
    { label: "one agent at a time", plan: plans.assignSerial, target: "latency" },
    { label: `${plans.assignConcurrent.concurrency} agents at once`, plan: plans.assignConcurrent, target: "rate" },
  ];
  for (const { label, plan, target } of variants) {
    const benchmark = `Assignment over HTTP, ${label}`;
    await guarded(record, benchmark, engineLabel, async () => {
      const { result, cpuPerCall, throughput } = await loadWithCpu(server, plan, request, checkAnswer, benchmark, "assignments/s");
      recordSamples(record, benchmark, engineLabel, result.latencies, {
        ...(target === "latency" ? { target: ASSIGN_TARGETS.latency } : {}),
        throughput: target === "rate" ? { ...throughput, target: ASSIGN_TARGETS.rate } : throughput,
        note:
          `POST /api/v1/experiments/{key}/assign with an API key (Bearer, scope experiments:assign), ${plan.concurrency} ` +
          `client${plan.concurrency === 1 ? "" : "s"} in a closed loop over kept-alive connections, ${plan.warmup} untimed then ` +
          `${plan.requests} timed requests, each a new unit (its first exposure is written); ${formatRate(throughput)}. ` +
          (cpuPerCall === null
            ? ""
            : `The server's processes used ${formatMs(cpuPerCall)} of CPU per request (Next.js, the route, Prisma` +
              `${engine.name === "PGlite" ? ", and the embedded database" : "; not PostgreSQL's"}). `) +
          `The experiment holds the 200k-trace seed's 20,000 units.`,
      });
    });
  }
}

/**
 * The floor under the assignment rows: the same route refusing a body not sent as JSON (415), which
 * its wrapper answers before any database work, the key or the experiment: Next.js and Node's HTTP
 * alone, at the same client counts. No route of this server answers faster.
 */
async function floorRows(server: Server, engine: BenchEngine, key: string, plans: StudioPlans, record: RecordResult): Promise<void> {
  const engineLabel = ENGINE_LABEL(engine);
  const request = () => ({
    method: "POST" as const,
    path: `/api/v1/experiments/${encodeURIComponent(key)}/assign`,
    headers: { "content-type": "text/plain" },
    body: "not json",
  });
  const checkAnswer = (status: number, body: string) => {
    if (status !== 415) throw new Error(`POST …/assign as text/plain answered HTTP ${status}: ${body.slice(0, 300)}`);
  };
  for (const plan of [plans.assignSerial, plans.assignConcurrent]) {
    const benchmark = `· Floor: a 415 from the same route, ${plan.concurrency === 1 ? "one client" : `${plan.concurrency} clients`}`;
    await guarded(record, benchmark, engineLabel, async () => {
      const { result, cpuPerCall, throughput } = await loadWithCpu(server, plan, request, checkAnswer, benchmark, "requests/s");
      recordSamples(record, benchmark, engineLabel, result.latencies, {
        throughput,
        note:
          `POST /api/v1/experiments/{key}/assign sent as text/plain, refused (415) by the route wrapper before it reads ` +
          `the key, the body or the database: what Next.js and Node's HTTP cost per request on this machine, with the ` +
          `load generator on the same cores; ${formatRate(throughput)}` +
          (cpuPerCall === null ? "." : `, ${formatMs(cpuPerCall)} of the server's CPU per request.`),
      });
    });
  }
}

/** The service alone, in this process: what an assignment costs without HTTP and Next.js. */
async function assignInProcessRow(engine: BenchEngine, key: string, plan: RunPlan, record: RecordResult): Promise<void> {
  const benchmark = "· assignUnit in-process (no HTTP)";
  await guarded(record, benchmark, engine.name, async () => {
    const stamp = Date.now().toString(36);
    const samples = await measure(
      async (call) => {
        const answer = await assignUnit(engine.db, key, `direct-${stamp}-${call}`);
        check(answer.inExperiment && answer.firstExposure, `unit ${call} was not placed: ${answer.reason}`);
      },
      plan,
      CALL_TIMEOUT_MS,
      benchmark,
    );
    recordSamples(record, benchmark, engine.name, samples, {
      note: "assignUnit (server/experiments/service.ts) called directly, a new unit each call: the experiment read and the first exposure written, as the route does after its checks.",
    });
  });
}

// ---- Pages in Chromium --------------------------------------------------------------------------

/**
 * Injected before any page script: on every animation frame, counts the chart surfaces (recharts
 * <svg>s with a size and something drawn in them) and records performance.now() — milliseconds
 * since navigation start — when the n-th first appears, in the frame it is about to be painted in.
 * A string, not a function, so the compiler cannot add helpers the page lacks.
 */
const CHART_WATCHER = `(() => {
  window.__aceCharts = [];
  function drawn() {
    let n = 0;
    for (const svg of document.querySelectorAll("svg.recharts-surface")) {
      const box = svg.getBoundingClientRect();
      if (box.width > 0 && box.height > 0 && svg.querySelector("path, rect, line")) n++;
    }
    return n;
  }
  function tick() {
    const n = drawn();
    while (window.__aceCharts.length < n) window.__aceCharts.push(performance.now());
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})();`;

interface ChartLoad {
  /** When the last expected chart appeared. */
  paintedMs: number;
  responseStartMs: number;
  charts: number;
  dataButtons: number;
  /** Charts held back below the first screen (WhenVisible), and how long each screen of them took once scrolled to. */
  below: { charts: number; screenMs: number[] };
}

/** How long a screen's placeholders may take to become charts before the row fails. */
const SCREEN_TIMEOUT_MS = 30_000;

/**
 * Scrolls down a screen at a time and times, for each screen that held placeholders, how long
 * until none is left in view: what a reader scrolling through waits for the charts below the first screen.
 */
async function scrollThrough(page: Page): Promise<ChartLoad["below"]> {
  const placeholders = page.locator("[data-chart-placeholder]");
  const charts = await placeholders.count();
  const screenMs: number[] = [];
  for (let screen = 0; screen < 20 && (await placeholders.count()) > 0; screen++) {
    const waited = (await page.evaluate(`(async () => {
      window.scrollBy(0, window.innerHeight);
      const start = performance.now();
      const inView = () => [...document.querySelectorAll("[data-chart-placeholder]")].some((box) => {
        const rect = box.getBoundingClientRect();
        return rect.bottom > 0 && rect.top < window.innerHeight;
      });
      if (!inView()) return null;
      while (inView()) {
        if (performance.now() - start > ${SCREEN_TIMEOUT_MS}) return -1;
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      return performance.now() - start;
    })()`)) as number | null;
    check(waited !== -1, `a placeholder in view was still not a chart ${formatMs(SCREEN_TIMEOUT_MS)} after scrolling to it`);
    if (waited !== null) screenMs.push(waited);
  }
  check((await placeholders.count()) === 0, "charts below the first screen were still placeholders after scrolling to the end");
  return { charts, screenMs };
}

/**
 * One load in a fresh browser context (empty cache). With `expected` null, waits until the network
 * is idle and the count of charts has not changed for SETTLE_MS, and takes that count as the page's;
 * otherwise waits for `expected` charts. Either way the time is when the last of them appeared.
 */
async function loadCharts(browser: Browser, url: string, expected: number | null): Promise<ChartLoad> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(LOAD_TIMEOUT_MS);
    await page.addInitScript({ content: CHART_WATCHER });
    const response = await page.goto(url, { waitUntil: "commit", timeout: LOAD_TIMEOUT_MS });
    if (!response?.ok()) throw new Error(`GET ${url} answered HTTP ${response?.status() ?? "nothing"}`);
    let charts: number;
    if (expected === null) {
      // Charts come after hydration, which on a busy machine may end well after the network is idle.
      await page.waitForLoadState("networkidle", { timeout: LOAD_TIMEOUT_MS });
      await page.waitForFunction(() => (window as unknown as { __aceCharts: number[] }).__aceCharts.length > 0, undefined, {
        timeout: LOAD_TIMEOUT_MS,
      });
      let last = -1;
      let stableSince = Date.now();
      for (;;) {
        const now = (await page.evaluate("window.__aceCharts.length")) as number;
        if (now !== last) {
          last = now;
          stableSince = Date.now();
        } else if (Date.now() - stableSince >= SETTLE_MS) {
          break;
        }
        await page.waitForTimeout(100);
      }
      charts = last;
      check(charts > 0, `no chart was drawn on ${url}`);
    } else {
      await page.waitForFunction((n) => (window as unknown as { __aceCharts: number[] }).__aceCharts.length >= n, expected, {
        timeout: LOAD_TIMEOUT_MS,
      });
      charts = expected;
    }
    const { times, responseStart } = (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      return { times: window.__aceCharts, responseStart: nav ? nav.responseStart : 0 };
    })()`)) as { times: number[]; responseStart: number };
    const dataButtons = await page.getByRole("button", { name: "Show data" }).count();
    const below = await scrollThrough(page);
    return { paintedMs: times[charts - 1] as number, responseStartMs: responseStart, charts, dataButtons, below };
  } finally {
    await context.close().catch(() => undefined);
  }
}

/** What the charts below the first screen cost a reader who scrolls down to them, if the page held any back. */
function belowNote(loads: readonly ChartLoad[]): string {
  const charts = loads[0]?.below.charts ?? 0;
  if (charts === 0) return "";
  const screens = loads.flatMap((load) => load.below.screenMs);
  if (screens.length === 0) return ` ${charts} more charts below it were already drawn when scrolled to (mounted half a screen ahead).`;
  return (
    ` ${charts} more charts below it draw when scrolled to (WhenVisible): scrolling down a screen at a time, each screen's ` +
    `charts were drawn ${formatMs(percentile(screens, 50))} (p50) and ${formatMs(percentile(screens, 95))} (p95) after the scroll ` +
    `(${screens.length} screens).`
  );
}

async function pageRows(
  browser: Browser,
  {
    benchmark,
    url,
    engineLabel,
    minCharts,
    describe,
  }: { benchmark: string; url: string; engineLabel: string; minCharts: number; describe: string },
  plan: RunPlan,
  record: RecordResult,
): Promise<void> {
  await guarded(record, benchmark, engineLabel, async () => {
    // The server's first view of this page since it started: what a person sees first.
    const cold = await loadCharts(browser, url, null);
    const all = cold.charts + cold.below.charts;
    check(all >= minCharts, `expected at least ${minCharts} charts on ${url}, ${all} were drawn (${cold.below.charts} after scrolling)`);
    for (let i = 0; i < plan.warmup; i++) await loadCharts(browser, url, cold.charts);
    const loads: ChartLoad[] = [];
    for (let i = 0; i < plan.runs; i++) loads.push(await loadCharts(browser, url, cold.charts));
    const ttfb = percentile(
      loads.map((load) => load.responseStartMs),
      50,
    );
    recordSamples(
      record,
      benchmark,
      engineLabel,
      loads.map((load) => load.paintedMs),
      {
        target: PAGE_TARGET,
        note:
          `${describe}: from navigation start until all ${cold.charts} charts drawn without scrolling (the first screen, 1440 × 900, and half a screen below it) are drawn ` +
          `(recharts surfaces with something in them; ${cold.dataButtons} "Show data" buttons on the page), a fresh browser ` +
          `context (empty cache) per load, the server warm; its response started after ${formatMs(ttfb)} (p50).` +
          belowNote(loads) +
          ` Chromium ${browser.version()}.`,
      },
    );
    recordSamples(record, `${benchmark}: first view after the server started`, engineLabel, [cold.paintedMs], {
      target: PAGE_TARGET,
      note: `The first load of the page after next start, before any warm-up; the response started after ${formatMs(cold.responseStartMs)}.`,
    });
  });
}

// ---- The server ---------------------------------------------------------------------------------

/** Which seeds the selected rows need on this engine (the pages are drawn on PGlite only). */
export function seedsNeeded(engine: BenchEngine, selection: StudioSelection): { metrics: boolean; experiment: boolean } {
  const pages = engine.name === "PGlite";
  return { metrics: pages && selection.evolution, experiment: selection.assign || (pages && selection.experimentPage) };
}

/** Seeds, untimed, what the metrics and experiment rows did not (when they were not selected). */
export async function completeSeeds(
  engine: BenchEngine,
  seeds: StudioSeeds,
  need: { metrics: boolean; experiment: boolean },
  record: RecordResult,
): Promise<StudioSeeds> {
  const done = { ...seeds };
  if (need.metrics && !done.metrics) {
    await guarded(record, "Studio server: metrics seed", ENGINE_LABEL(engine), async () => {
      const seed = await seedMetricsPlaybook(engine.db, `Metrics ${Date.now()}`, new Date());
      await seedMetricsRuns(engine.db, seed);
      done.metrics = seed;
    });
  }
  if (need.experiment && !done.experiment) {
    await guarded(record, "Studio server: experiment seed", ENGINE_LABEL(engine), async () => {
      done.experiment = await seedExperiment(engine.db, `bench-${Date.now()}`, new Date());
    });
  }
  return done;
}

/**
 * Starts `next start` on the engine's database (releasing the bench's PGlite handle first: one
 * process owns the folder) and runs the selected rows against it. Call it last for the engine.
 */
export async function studioBenchmarks(
  engine: BenchEngine,
  seeds: StudioSeeds,
  selection: StudioSelection,
  plans: StudioPlans,
  cleanups: Cleanups,
  record: RecordResult,
): Promise<void> {
  const engineLabel = ENGINE_LABEL(engine);
  const pages = engine.name === "PGlite" && (selection.evolution || selection.experimentPage);
  if (!selection.assign && !pages) return;
  const names = [
    ...(selection.assign ? ["Assignment over HTTP"] : []),
    ...(pages && selection.evolution ? ["Evolution tab in Chromium"] : []),
    ...(pages && selection.experimentPage ? ["Experiment results page in Chromium"] : []),
  ];
  const fail = (message: string) => names.forEach((benchmark) => record({ kind: "error", benchmark, engine: engineLabel, message }));

  const build = await ensureBuild();
  if (!build.ok) return fail(build.reason);
  console.log(`[bench] ${build.note}`);
  const recordRow = record;
  record = (result) =>
    recordRow(result.kind === "measured" ? { ...result, note: `${result.note ?? ""} Served from: ${build.note}.`.trim() } : result);
  if (await portInUse(STUDIO_PORT)) return fail(`Port ${STUDIO_PORT} is taken; stop whatever listens there and rerun.`);
  if (pages && !(await import("node:fs")).existsSync(CHROMIUM)) return fail(`Chromium is not at ${CHROMIUM} (set CHROMIUM_PATH).`);

  let apiKey = "";
  const prepared = await guarded(record, "Studio server: setup", engineLabel, async () => {
    if (selection.assign) {
      check(seeds.experiment, "no experiment was seeded to assign in");
      const created = await createApiKey(
        engine.db,
        systemWho(ACTOR).audit,
        { secret: null },
        {
          name: `bench assignment ${Date.now()}`,
          scopes: ["experiments:assign"],
          playbooks: "all",
          rateLimitPerMinute: 10_000_000,
        },
      );
      apiKey = created.secret;
      await assignInProcessRow(engine, seeds.experiment.key, plans.assignInProcess, record);
    }
    await engine.release();
  });
  if (!prepared) return;

  let server: Server | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
  };
  cleanups.add(stop);
  try {
    server = startServer(STUDIO_PORT, engine.serverEnv);
    const started = server;
    const up = await guarded(record, "Studio server: start", engineLabel, () => waitUntilServing(started, `${started.origin}/playbooks`));
    if (!up) return;
    if (selection.assign && seeds.experiment) {
      await assignmentRows(started, engine, seeds.experiment.key, apiKey, plans, record);
      await floorRows(started, engine, seeds.experiment.key, plans, record);
    }
    if (!pages) return;
    browser = await withTimeout(
      chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 }),
      60_000,
      "Launching Chromium",
    );
    if (selection.evolution && seeds.metrics) {
      await pageRows(
        browser,
        {
          benchmark: "Evolution tab in Chromium, 90 days",
          url: `${started.origin}/playbooks/${seeds.metrics.playbookId}/evolution?range=90d`,
          engineLabel,
          minCharts: 5,
          describe: "/playbooks/<id>/evolution?range=90d on the metrics seed (100k traces, 1,000 versions, 100k runs)",
        },
        plans.pages,
        record,
      );
    }
    if (selection.experimentPage && seeds.experiment) {
      await pageRows(
        browser,
        {
          benchmark: "Experiment results page in Chromium",
          url: `${started.origin}/experiments/${encodeURIComponent(seeds.experiment.key)}`,
          engineLabel,
          minCharts: 2,
          describe: "/experiments/<key> on the experiment seed (200k traces, 20k units)",
        },
        plans.pages,
        record,
      );
    }
  } finally {
    await stop();
    cleanups.delete(stop);
  }
}

/** Lines for "How these were measured". */
export function studioNotes(plans: StudioPlans): string[] {
  return [
    `Studio server rows: the production build (.next, built first when any source file is newer than it) served by ` +
      `\`next start -H 127.0.0.1 -p ${STUDIO_PORT}\` on the engine's seeded database (PGlite: the bench's folder as DATA_DIR, ` +
      `its handle closed first; PostgreSQL: the bench database as DATABASE_URL), stopped afterwards. Assignment (target p95 ≤ ` +
      `${formatMs(ASSIGN_TARGETS.latency.maxMs)} one agent at a time, ≥ ${ASSIGN_TARGETS.rate.minPerSecond.toLocaleString("en")} ` +
      `assignments/s with ${plans.assignConcurrent.concurrency} at once): POST /api/v1/experiments/{key}/assign with a Bearer API ` +
      `key (its checks and per-key rate-limit counter included, the limit set high) and a new unit id per call, from this process ` +
      `over kept-alive connections (node:http); warm-up ${plans.assignSerial.warmup} + ${plans.assignSerial.requests} timed ` +
      `requests serially, ${plans.assignConcurrent.warmup} + ${plans.assignConcurrent.requests} in the concurrent row. The load ` +
      `generator shares the machine's cores with the server and the database.`,
    `Pages in Chromium (target p95 ≤ ${formatMs(PAGE_TARGET.maxMs)}; PGlite only): the Evolution tab of the metrics seed at ` +
      `range=90d and the results page of the experiment seed, each first loaded once right after the server started (the ` +
      `"first view" row, which also fixes how many charts the page draws), then ${plans.pages.warmup} warm-up + ` +
      `${plans.pages.runs} timed loads in fresh browser contexts; the time is from navigation start until the last chart ` +
      `surface of the first screen is drawn, taken in the page on the animation frame it appears in. Charts further down ` +
      `mount when scrolled near (as dashboards lazy-load panels): each load then scrolls down a screen at a time and times ` +
      `how long each screen's placeholders take to become charts.`,
  ];
}
