// First render of a 10,000-bullet playbook in Chromium, against the production build served by
// `next start` on a fresh embedded database. Never builds: another engineer may be building here.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { openDatabase } from "@/server/db/client";
import { backgroundBuilds } from "@/server/deltas/engine-state";
import { importPlaybookInput, listBulletsInput } from "@/server/playbooks/schemas";
import { listBullets } from "@/server/playbooks/browse";
import { importPlaybook } from "@/server/playbooks/import";
import { ACTOR } from "./database";
import { withTimeout, type RunPlan } from "./measure";
import { APP_ROOT, portInUse, startServer, waitUntilServing, type Cleanups, type Server } from "./next-server";
import { CHROMIUM, CHROMIUM_ARGS } from "@/server/testing/chromium";
import { makeTempDir } from "./temp-dirs";
import { formatMs, type BenchResult, type Target } from "./report";
import { percentile, summarize } from "./stats";
import type { SyntheticPlaybook } from "./synthetic";

export const RENDER_TARGET: Target = { maxMs: 1_500 };
const BENCHMARK = "First render in Chromium, 10k bullets";
const ENGINE = "PGlite (next start)";
const PORT = 3200;
const LOAD_TIMEOUT_MS = 30_000;

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
  if (!existsSync(path.join(APP_ROOT, ".next", "BUILD_ID"))) {
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
      // The list started loading the playbook's state in the background: let it end before closing.
      await backgroundBuilds(handle.db);
    } finally {
      await handle.close();
    }

    server = startServer(PORT, { DATA_DIR: dataDir });
    const url = `${server.origin}/playbooks/${playbookId}`;
    await waitUntilServing(server, `${server.origin}/playbooks`); // the index: up, without touching the big playbook yet

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
