// First render of a 10,000-bullet playbook in Chromium, against the production build served by
// `next start` on a fresh embedded database. Never builds: another engineer may be building here.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { chromium, type Browser } from "@playwright/test";
import { openDatabase } from "@/server/db/client";
import { importPlaybookInput, listBulletsInput } from "@/server/playbooks/schemas";
import { listBullets } from "@/server/playbooks/browse";
import { importPlaybook } from "@/server/playbooks/import";
import { ACTOR } from "./database";
import { withTimeout, type RunPlan } from "./measure";
import { REPO_ROOT } from "./paths";
import { makeTempDir } from "./temp-dirs";
import { formatMs, type BenchResult, type Target } from "./report";
import { percentile, summarize } from "./stats";
import type { SyntheticPlaybook } from "./synthetic";

export const RENDER_TARGET: Target = { maxMs: 1_500 };
const BENCHMARK = "First render in Chromium, 10k bullets";
const ENGINE = "PGlite (next start)";
const PORT = 3200;
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const SERVER_START_TIMEOUT_MS = 90_000;
const SERVER_STOP_TIMEOUT_MS = 10_000;
const LOAD_TIMEOUT_MS = 30_000;

/** Work to undo if the bench is interrupted (Ctrl-C) while the server runs. */
export type Cleanups = Set<() => Promise<void>>;

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.setTimeout(1_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

interface Server {
  process: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * `next start` in its own process group, so stopping it also stops anything it spawned. A shell
 * leads the group and ends it when the bench process disappears, even by SIGKILL, so no server is
 * left holding the port.
 */
function startServer(dataDir: string): Server {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATA_DIR: dataDir,
    PORT: String(PORT),
    ACE_DEMO_SEED: "off",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.DATABASE_URL; // the fresh DATA_DIR, whatever the shell says
  const next = [process.execPath, path.join(REPO_ROOT, "node_modules/next/dist/bin/next"), "start", "-p", String(PORT)];
  const watchdog =
    `${next.map(shellQuote).join(" ")} & server=$!; ` +
    `while kill -0 ${process.pid} 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 1; done; ` +
    `kill -TERM 0`;
  const child = spawn("/bin/sh", ["-c", watchdog], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (lines.length > 60) lines.splice(0, lines.length - 60);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const group = child.pid;
  const signal = (name: NodeJS.Signals | 0): boolean => {
    try {
      if (group) process.kill(-group, name);
      return group !== undefined;
    } catch {
      return false; // the group is gone
    }
  };
  /** True once no process of the group is left; the shell may exit before the server has. */
  const groupGone = async (withinMs: number): Promise<boolean> => {
    const deadline = Date.now() + withinMs;
    while (signal(0)) {
      if (Date.now() > deadline) return false;
      await sleep(100);
    }
    return true;
  };
  let stopping: Promise<void> | undefined;
  return {
    process: child,
    output: () => lines.join("\n"),
    stop: () =>
      (stopping ??= (async () => {
        signal("SIGTERM");
        if (await groupGone(SERVER_STOP_TIMEOUT_MS)) return;
        signal("SIGKILL");
        if (!(await groupGone(SERVER_STOP_TIMEOUT_MS))) console.error(`[bench] process group ${group} survived SIGKILL`);
      })()),
  };
}

async function waitUntilServing(server: Server, url: string): Promise<void> {
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  let lastProblem = "no answer yet";
  while (Date.now() < deadline) {
    if (server.process.exitCode !== null || server.process.signalCode !== null) {
      throw new Error(`next start exited (${server.process.exitCode ?? server.process.signalCode}) before serving:\n${server.output()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(LOAD_TIMEOUT_MS) });
      await response.arrayBuffer();
      if (response.ok) return;
      lastProblem = `HTTP ${response.status}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await sleep(500);
  }
  throw new Error(
    `next start did not serve ${url} within ${SERVER_START_TIMEOUT_MS / 1000} s (${lastProblem}). Server output:\n${server.output()}`,
  );
}

function xpathLiteral(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('"')) return `"${text}"`;
  return `concat('${text.replace(/'/g, `', "'", '`)}')`;
}

/**
 * Injected before any page script: on every animation frame until found, looks for the innermost
 * visible element outside scripts whose text holds the marker, and records performance.now() —
 * milliseconds since navigation start — in the frame it is about to be painted in. A string, not a
 * function, so the TypeScript compiler cannot add helpers the page lacks.
 */
function firstBulletWatcher(marker: string): string {
  const literal = xpathLiteral(marker);
  const xpath = `//body//*[not(self::script or self::style or self::template or self::noscript)][contains(., ${literal}) and not(*[contains(., ${literal})])]`;
  return `(() => {
    const marker = ${JSON.stringify(marker)};
    const xpath = ${JSON.stringify(xpath)};
    function visible(el) {
      if (typeof el.checkVisibility === "function" && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight;
    }
    function check() {
      if (window.__aceFirstBulletAt !== undefined) return;
      const text = document.body ? document.body.textContent : "";
      if (text && text.includes(marker)) {
        const found = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        for (let i = 0; i < found.snapshotLength; i++) {
          if (visible(found.snapshotItem(i))) {
            window.__aceFirstBulletAt = performance.now();
            return;
          }
        }
      }
      requestAnimationFrame(check);
    }
    requestAnimationFrame(check);
  })();`;
}

export interface Load {
  firstBulletMs: number;
  responseStartMs: number;
}

/** One load in a fresh browser context (empty cache): when the bullet showed, and when the response began. */
export async function loadOnce(browser: Browser, url: string, firstBulletId: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(LOAD_TIMEOUT_MS);
    await page.addInitScript({ content: firstBulletWatcher(`[${firstBulletId}]`) });
    const response = await page.goto(url, { waitUntil: "commit", timeout: LOAD_TIMEOUT_MS });
    if (!response?.ok()) throw new Error(`GET ${url} answered HTTP ${response?.status() ?? "nothing"}`);
    // Playwright's own visibility check is the arbiter; the watcher only supplies the precise time.
    await page.getByText(`[${firstBulletId}]`).first().waitFor({ state: "visible", timeout: LOAD_TIMEOUT_MS });
    const at = await page.evaluate(`(async () => {
      for (let i = 0; i < 50 && window.__aceFirstBulletAt === undefined; i++) await new Promise((r) => requestAnimationFrame(r));
      const nav = performance.getEntriesByType("navigation")[0];
      return { first: window.__aceFirstBulletAt ?? performance.now(), responseStart: nav ? nav.responseStart : 0 };
    })()`);
    const { first, responseStart } = at as { first: number; responseStart: number };
    return { firstBulletMs: first, responseStartMs: responseStart };
  } finally {
    await context.close().catch(() => undefined);
  }
}

export async function renderBenchmark(synthetic: SyntheticPlaybook, plan: RunPlan, cleanups: Cleanups): Promise<BenchResult[]> {
  if (!existsSync(path.join(REPO_ROOT, ".next", "BUILD_ID"))) {
    const reason = "No production build (.next/BUILD_ID is missing): `npx next build` must run first.";
    console.log(`[bench] ${reason} Skipping the render benchmark.`);
    return [{ kind: "skipped", benchmark: BENCHMARK, engine: ENGINE, reason }];
  }
  if (!existsSync(CHROMIUM)) {
    return [{ kind: "error", benchmark: BENCHMARK, engine: ENGINE, message: `Chromium is not at ${CHROMIUM} (set CHROMIUM_PATH).` }];
  }
  if (await portInUse(PORT)) {
    return [
      { kind: "error", benchmark: BENCHMARK, engine: ENGINE, message: `Port ${PORT} is taken; stop whatever listens there and rerun.` },
    ];
  }

  const dataDir = await makeTempDir("render");
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  cleanups.add(removeDataDir);
  let server: Server | undefined;
  const stopServer = () => server?.stop() ?? Promise.resolve();
  cleanups.add(stopServer);
  let browser: Browser | undefined;
  try {
    // Seed without the CLI: open the folder, import, close (which releases its lock for the server).
    const handle = await openDatabase({ kind: "pglite", dataDir });
    let playbookId: string;
    let firstBulletId: string;
    try {
      const imported = await withTimeout(
        importPlaybook(
          handle.db,
          ACTOR,
          importPlaybookInput.parse({ content: synthetic.text, format: "ace", target: { kind: "new", name: "Synthetic 10k" } }),
        ),
        600_000,
        "Importing the synthetic playbook for the render benchmark",
      );
      playbookId = imported.playbookId;
      const firstPage = await listBullets(handle.db, listBulletsInput.parse({ playbookId, sort: "position", limit: 1 }));
      firstBulletId = firstPage.items[0]?.externalId ?? synthetic.firstBulletId;
    } finally {
      await handle.close();
    }

    const origin = `http://127.0.0.1:${PORT}`;
    const url = `${origin}/playbooks/${playbookId}`;
    server = startServer(dataDir);
    await waitUntilServing(server, `${origin}/playbooks`); // the index: up, without touching the big playbook yet

    browser = await withTimeout(
      chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 }),
      60_000,
      "Launching Chromium",
    );
    const version = browser.version();
    // What a person sees right after importing: the server's first look at this playbook version.
    const cold = await withTimeout(loadOnce(browser, url, firstBulletId), 90_000, "The first load");
    for (let i = 0; i < plan.warmup; i++) await withTimeout(loadOnce(browser, url, firstBulletId), 90_000, "A warm-up load");
    const loads: Load[] = [];
    for (let i = 0; i < plan.runs; i++) loads.push(await withTimeout(loadOnce(browser, url, firstBulletId), 90_000, "A timed load"));

    const ttfb = percentile(
      loads.map((load) => load.responseStartMs),
      50,
    );
    return [
      {
        kind: "measured",
        benchmark: BENCHMARK,
        engine: ENGINE,
        summary: summarize(loads.map((load) => load.firstBulletMs)),
        target: RENDER_TARGET,
        note:
          `From navigation start until [${firstBulletId}] is visible, a fresh browser context (empty cache) per load; ` +
          `the server's response started after ${formatMs(ttfb)} (p50). Chromium ${version}.`,
      },
      {
        kind: "measured",
        benchmark: `${BENCHMARK}: first view after the import`,
        engine: ENGINE,
        summary: summarize([cold.firstBulletMs]),
        note:
          `The first load after the server started, before any warm-up: the server's response started after ` +
          `${formatMs(cold.responseStartMs)}. Not judged against the target; it shows the cost of the first view of a new playbook version.`,
      },
    ];
  } catch (error) {
    console.error("[bench] the render benchmark failed:", error);
    return [{ kind: "error", benchmark: BENCHMARK, engine: ENGINE, message: (error as Error).message.split("\n")[0] ?? String(error) }];
  } finally {
    await browser?.close().catch(() => undefined);
    await stopServer();
    await removeDataDir();
    cleanups.delete(stopServer);
    cleanups.delete(removeDataDir);
  }
}
