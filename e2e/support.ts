// Test helpers: seed data through the tRPC HTTP API (not the UI), and read the fixtures.
import type { APIRequestContext, Page } from "@playwright/test";
import { createTRPCClient, httpLink } from "@trpc/client";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import superjson from "superjson";
import type { AppRouter } from "../server/trpc/root";

import { BASE_URL } from "./base-url";

export const api = createTRPCClient<AppRouter>({
  links: [httpLink({ url: `${BASE_URL}/api/trpc`, transformer: superjson })],
});

/** The published playbooks kept in server/testing/playbooks (provenance in its README). */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../server/testing/playbooks/${name}`, import.meta.url));
}

export const APPWORLD_TRAINED = fixturePath("ace-appworld__appworld_offline_trained_no_gt_playbook.txt");

/** Imports a fixture as a new playbook with a unique name; returns its id. */
export async function seedPlaybook(file: string, name = `${basename(file)} ${Date.now()}`): Promise<string> {
  const result = await api.playbook.import.mutate({
    content: readFileSync(file, "utf8"),
    fileName: basename(file),
    target: { kind: "new", name },
  });
  return result.playbookId;
}

/** Section names and bullet ids of an ACE text playbook, in file order (for assertions). */
export function readAcePlaybook(file: string): { sections: string[]; ids: string[]; bySection: Map<string, string[]> } {
  const bySection = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const header = /^## (.*)$/.exec(line);
    if (header) {
      current = [];
      bySection.set(header[1]!, current);
      continue;
    }
    const bullet = /^\[([^\]]+)\]/.exec(line);
    if (bullet && current) current.push(bullet[1]!);
  }
  return { sections: [...bySection.keys()], ids: [...bySection.values()].flat(), bySection };
}

/**
 * Opens a playbook and waits until the page is interactive: a click that lands before hydration
 * still works (rows are real links) but reloads the page, which on a busy machine can outlast
 * an assertion's timeout.
 */
export async function openPlaybook(page: Page, playbookId: string): Promise<void> {
  await page.goto(`/playbooks/${playbookId}`);
  await waitForApp(page);
}

/**
 * The page is loaded and React has hydrated all of it. The root sets data-hydrated when it mounts
 * (components/trpc/client.tsx), but the page's Suspense boundaries (the playbook header, the part
 * under each loading.tsx) hydrate after it, in scheduler tasks of their own, and a click on one not
 * hydrated yet is lost: in a CI trace the click on a bullet went nowhere, and the header's tab links
 * hydrated (and prefetched) 1.2 s after data-hydrated, just after that click. The browser is idle
 * only once React has no such task left.
 */
export async function waitForApp(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.evaluate(() => new Promise<void>((resolve) => requestIdleCallback(() => requestIdleCallback(() => resolve()))));
}

/** Four bullets in two sections, with counters: small enough to see every change in a test. */
export const SMALL_PLAYBOOK = [
  "## strategies_and_insights",
  "[str-00001] helpful=3 harmful=0 :: Always verify data types before processing numeric fields.",
  "[str-00002] helpful=1 harmful=4 :: Retry failed API calls immediately without any backoff.",
  "[str-00003] helpful=0 harmful=0 :: Paginate through every page of results before answering.",
  "## common_mistakes_to_avoid",
  "[mis-00004] helpful=2 harmful=0 :: Don't forget timezone conversions when comparing dates.",
  "",
].join("\n");

/** Imports SMALL_PLAYBOOK as a new playbook with a unique name; returns its id. */
export async function seedSmallPlaybook(name = `Curation ${Date.now()}-${Math.floor(Math.random() * 1000)}`): Promise<string> {
  const result = await api.playbook.import.mutate({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name } });
  return result.playbookId;
}

type ProposeInput = Parameters<typeof api.delta.propose.mutate>[0];

/**
 * A pending delta proposed through the API, as the local operator (a person: the server sets a
 * proposal's origin from who sends it, never from the request).
 */
export async function proposeDelta(
  playbookId: string,
  operations: ProposeInput["operations"][number]["operation"][],
  extra: { rationale?: string; confidence?: number } = {},
): Promise<string> {
  const outcome = await api.delta.propose.mutate({
    playbookId,
    rationale: extra.rationale ?? "Lessons from the last reflection",
    confidence: extra.confidence ?? 0.5,
    evidence: { traceIds: ["trace-17"], runIds: ["run-3"] },
    operations: operations.map((operation) => ({ operation })),
  });
  return outcome.deltaId;
}

/** Opens a page of a playbook (its review queue, history …) and waits until it is interactive. */
export async function openPlaybookTab(page: Page, playbookId: string, tab: "review" | "history"): Promise<void> {
  await page.goto(`/playbooks/${playbookId}/${tab}`);
  await waitForApp(page);
}

/** Opens any page of the app and waits until it is interactive. */
export async function openPage(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await waitForApp(page);
}

export interface TraceBody {
  playbook: string;
  task: string;
  externalId?: string;
  reasoning?: string;
  output?: string;
  citedBulletIds?: string[];
  outcome?: "success" | "failure" | "unknown";
  feedback?: { groundTruth?: string; errors?: string[]; testResults?: string; notes?: string };
  durationMs?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  variant?: string;
  unitId?: string;
  /** When the agent ran (ISO 8601 with a zone); default the time of receipt. */
  timestamp?: string;
  metadata?: Record<string, unknown>;
}

/** Posts traces as an agent does (POST /api/v1/traces, one batch); returns the ingest result. */
export async function postTraces(
  request: APIRequestContext,
  traces: TraceBody[],
): Promise<{ traces: { id: string; status: string }[]; created: number; duplicates: number }> {
  const response = await request.post(`${BASE_URL}/api/v1/traces`, { data: { traces } });
  if (!response.ok()) throw new Error(`POST /api/v1/traces answered ${response.status()}: ${await response.text()}`);
  return response.json();
}

/** Runs of a playbook not finished yet plus traces not reflected yet: 0 once the background work is done. */
export async function runsPending(playbookId: string): Promise<number> {
  const status = await api.runs.status.query({ playbookId });
  return status.queue.queued + status.queue.running + (status.reflectorMode === "auto" ? status.unreflected : 0);
}
