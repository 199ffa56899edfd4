// The Evolution tab end to end: an agent back-fills three days of traces with known outcomes for two
// variants over HTTP, a person edits the playbook; the charts show exactly those numbers (Show data
// and the CSV), zooming writes the range into the URL, a version flag opens its diff, and a bucket
// opens the trace explorer filtered to it. Timestamps are pinned to UTC days before today, and the
// browser runs in UTC so the tables' bucket labels are predictable.
import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { BASE_URL } from "./base-url";
import { api, openPage, runsPending, seedSmallPlaybook } from "./support";

test.use({ timezoneId: "UTC" });
test.describe.configure({ mode: "serial" });

const DAY_MS = 86_400_000;
const Z = 1.959963984540054;

/** 00:00 UTC, `daysAgo` days before today. */
function utcDay(daysAgo: number): Date {
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  return new Date(today.getTime() - daysAgo * DAY_MS);
}

interface DayFixture {
  daysAgo: number;
  A: { success: number; failure: number; unknown: number };
  B: { success: number; failure: number; unknown: number };
}

/** Known outcomes per UTC day and variant. */
const FIXTURE: DayFixture[] = [
  { daysAgo: 3, A: { success: 6, failure: 2, unknown: 1 }, B: { success: 3, failure: 3, unknown: 0 } },
  { daysAgo: 2, A: { success: 8, failure: 0, unknown: 0 }, B: { success: 2, failure: 4, unknown: 0 } },
  { daysAgo: 1, A: { success: 5, failure: 1, unknown: 0 }, B: { success: 4, failure: 2, unknown: 0 } },
];

const INPUT_TOKENS = 1_000;
const OUTPUT_TOKENS = 200;
const COST_USD = 0.001;

function totals(day: DayFixture) {
  const success = day.A.success + day.B.success;
  const failure = day.A.failure + day.B.failure;
  const unknown = day.A.unknown + day.B.unknown;
  return { traces: success + failure + unknown, success, failure, unknown };
}

function wilson(successes: number, trials: number): [number, number] {
  const p = successes / trials;
  const denominator = 1 + (Z * Z) / trials;
  const centre = (p + (Z * Z) / (2 * trials)) / denominator;
  const half = (Z / denominator) * Math.sqrt((p * (1 - p)) / trials + (Z * Z) / (4 * trials * trials));
  return [successes === 0 ? 0 : centre - half, successes === trials ? 1 : centre + half];
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const dayLabel = (date: Date) =>
  new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric" }).format(date);

/** Posts the fixture as an agent would: one batch, back-dated with `timestamp`, spread over each day. */
async function postFixture(request: APIRequestContext, playbook: string) {
  const traces: Record<string, unknown>[] = [];
  for (const day of FIXTURE) {
    let minute = 0;
    for (const variant of ["A", "B"] as const) {
      for (const outcome of ["success", "failure", "unknown"] as const) {
        for (let i = 0; i < day[variant][outcome]; i += 1) {
          minute += 7;
          traces.push({
            playbook,
            externalId: `evo-${day.daysAgo}-${variant}-${outcome}-${i}`,
            task: `Task ${variant} ${outcome} ${i}`,
            output: "done",
            outcome,
            variant,
            citedBulletIds: outcome === "success" ? ["str-00001"] : outcome === "failure" ? ["str-00002"] : [],
            timestamp: new Date(utcDay(day.daysAgo).getTime() + 9 * 3_600_000 + minute * 60_000).toISOString(),
            model: "gpt-4.1-mini",
            usage: { inputTokens: INPUT_TOKENS, outputTokens: OUTPUT_TOKENS, costUsd: COST_USD },
            durationMs: 1_000,
          });
        }
      }
    }
  }
  const response = await request.post(`${BASE_URL}/api/v1/traces`, { data: { traces } });
  if (!response.ok()) throw new Error(`POST /api/v1/traces answered ${response.status()}: ${await response.text()}`);
}

const ADDED = "Check the order's currency before refunding.";
let playbookId = "";
let playbookName = "";

test.beforeAll(async ({ request }) => {
  test.setTimeout(120_000);
  playbookName = `Evolution ${Date.now()}`;
  playbookId = await seedSmallPlaybook(playbookName);
  // A person's edit: version 2, made today, next to the import (version 1).
  await api.delta.edit.mutate({
    playbookId,
    operations: [{ type: "add", section: "strategies_and_insights", content: ADDED }],
    reason: "Refunds in the wrong currency",
  });
  await postFixture(request, playbookName);
  // Reflections tag the cited bullets in the background; wait, so the numbers stand still.
  await expect.poll(() => runsPending(playbookId), { timeout: 90_000, intervals: [500, 1_000] }).toBe(0);
});

async function openEvolution(page: Page, query = "") {
  await openPage(page, `/playbooks/${playbookId}/evolution${query}`);
}

function chart(page: Page, name: string) {
  return page.getByRole("region", { name, exact: true });
}

async function showData(page: Page, name: string) {
  const region = chart(page, name);
  await region.getByRole("button", { name: "Show data" }).click();
  return region;
}

test("the tab is in the playbook's tabs, and every chart renders", async ({ page }) => {
  await openPage(page, `/playbooks/${playbookId}`);
  await page.getByRole("navigation", { name: "Playbook" }).getByRole("link", { name: "Evolution" }).click();
  await expect(page).toHaveURL(new RegExp(`/playbooks/${playbookId}/evolution$`));
  await expect(page.getByText(/Buckets are UTC days \(from 00:00 UTC\); times are shown in your time zone, UTC\./)).toBeVisible();
  for (const name of ["Outcomes", "Size", "Counters", "Top movers", "Score distribution", "Churn", "Review", "LLM cost"]) {
    await expect(chart(page, name)).toBeVisible();
  }
  // Charts with data draw an SVG surface; none shows its empty state. Those below the first screen
  // draw when scrolled to (a placeholder of their height holds their place until then).
  for (const name of ["Outcomes", "Size", "Counters", "Score distribution", "Churn", "LLM cost"]) {
    await chart(page, name).scrollIntoViewIfNeeded();
    await expect(chart(page, name).locator("svg.recharts-surface").first()).toBeVisible();
  }
  await expect(page.locator("[data-chart-placeholder]")).toHaveCount(0);
  // The reflector tagged str-00001 on every success and str-00002 on every failure.
  await expect(chart(page, "Top movers").getByRole("list", { name: "Rose most" })).toContainText("[str-00001]");
  await expect(chart(page, "Top movers").getByRole("list", { name: "Fell most" })).toContainText("[str-00002]");
});

test("the page's HTML carries the metrics answer once, not again in the playbook header's hydration state", async ({ request }) => {
  const html = await (await request.get(`/playbooks/${playbookId}/evolution`)).text();
  // Each dehydrated copy of the metrics answer names its "outcomesByVariant" once. The header's
  // boundary lists its own queries; without the list it shipped the page's metrics a second time
  // whenever they had settled first.
  expect(html.split("outcomesByVariant").length - 1).toBe(1);
});

test("Show data lists each day's traces, outcomes, rate and Wilson interval, per variant too", async ({ page }) => {
  await openEvolution(page);
  const region = await showData(page, "Outcomes");
  const table = region.getByRole("table", { name: /^Outcomes · / });
  await expect(table).toBeVisible();
  for (const day of FIXTURE) {
    const sum = totals(day);
    const decided = sum.success + sum.failure;
    const [low, high] = wilson(sum.success, decided);
    const row = table.getByRole("row", { name: new RegExp(`^${dayLabel(utcDay(day.daysAgo))}\\b`) });
    const cells = row.getByRole("cell");
    await expect(cells.nth(0)).toHaveText(String(sum.traces));
    await expect(cells.nth(1)).toHaveText(String(sum.success));
    await expect(cells.nth(2)).toHaveText(String(sum.failure));
    await expect(cells.nth(3)).toHaveText(String(sum.unknown));
    await expect(cells.nth(4)).toHaveText(percent(sum.success / decided));
    await expect(cells.nth(5)).toHaveText(percent(low));
    await expect(cells.nth(6)).toHaveText(percent(high));
    // Variant A's columns follow: traces, success, failure, rate.
    const a = day.A;
    await expect(cells.nth(7)).toHaveText(String(a.success + a.failure + a.unknown));
    await expect(cells.nth(8)).toHaveText(String(a.success));
    await expect(cells.nth(9)).toHaveText(String(a.failure));
    await expect(cells.nth(10)).toHaveText(percent(a.success / (a.success + a.failure)));
  }
  // A day without traces is listed with zeros and no rate.
  const empty = table.getByRole("row", { name: new RegExp(`^${dayLabel(utcDay(5))}\\b`) }).getByRole("cell");
  await expect(empty.nth(0)).toHaveText("0");
  await expect(empty.nth(4)).toHaveText("—");
});

test("the other charts' tables show the numbers the metrics API returns", async ({ page }) => {
  const tomorrow = new Date(utcDay(0).getTime() + DAY_MS);
  const metrics = await api.metrics.playbook.query({
    playbookId,
    from: new Date(tomorrow.getTime() - 30 * DAY_MS),
    to: tomorrow,
    bucket: "day",
  });
  await openEvolution(page);

  // LLM cost: the agents' own usage, a day of the fixture.
  const llm = (await showData(page, "LLM cost")).getByRole("table", { name: /^LLM cost per bucket · / });
  const day = FIXTURE[0]!;
  const tokens = totals(day).traces * (INPUT_TOKENS + OUTPUT_TOKENS);
  const agentRow = llm.getByRole("row", { name: new RegExp(`^${dayLabel(utcDay(day.daysAgo))}\\b`) });
  // Columns: reflector runs, tokens, cost; curator runs, tokens, cost; agent traces, tokens, cost.
  await expect(agentRow.getByRole("cell").nth(6)).toHaveText(String(totals(day).traces));
  await expect(agentRow.getByRole("cell").nth(7)).toHaveText(tokens.toLocaleString("en-US"));
  await expect(agentRow.getByRole("cell").nth(8)).toHaveText(`$${(totals(day).traces * COST_USD).toFixed(4)}`);

  // Size today: the active bullets of the last content version, as the API says.
  const today = metrics.versions.at(-1)!;
  const size = (await showData(page, "Size")).getByRole("table", { name: /^Size · / });
  const todayRow = size.getByRole("row", { name: new RegExp(`^${dayLabel(utcDay(0))}\\b`) });
  await expect(todayRow.getByRole("cell").nth(0)).toHaveText(String(today.version));
  await expect(todayRow.getByRole("cell").nth(1)).toHaveText(String(today.activeBullets));

  // Churn today: the operations by type, as the API counts them (counter tags left out).
  const churnBucket = metrics.churn.at(-1)!;
  const churn = (await showData(page, "Churn")).getByRole("table", { name: /^Churn by type · / });
  const churnRow = churn.getByRole("row", { name: new RegExp(`^${dayLabel(utcDay(0))}\\b`) });
  await expect(churnRow.getByRole("cell").first()).toHaveText(String(churnBucket.operations.add ?? 0));
});

test("the CSV download holds the same numbers as the table", async ({ page }) => {
  await openEvolution(page);
  const region = chart(page, "Outcomes");
  const downloading = page.waitForEvent("download");
  await region.getByRole("button", { name: /^Download CSV of Outcomes · / }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^outcomes-evolution-\d+-.*\.csv$/);
  const lines = readFileSync(await download.path(), "utf8")
    .replace(/^\ufeff/, "")
    .trim()
    .split("\r\n");
  expect(lines[0]).toBe(
    "Bucket start,Traces,Success,Failure,Unknown,Success rate,95 % low,95 % high," +
      "A: traces,A: success,A: failure,A: success rate,A: 95 % low,A: 95 % high," +
      "B: traces,B: success,B: failure,B: success rate,B: 95 % low,B: 95 % high",
  );
  expect(lines).toHaveLength(31);
  for (const day of FIXTURE) {
    const line = lines.find((entry) => entry.startsWith(utcDay(day.daysAgo).toISOString()));
    expect(line, `a line for ${utcDay(day.daysAgo).toISOString()}`).toBeDefined();
    const fields = line!.split(",");
    const sum = totals(day);
    expect(fields.slice(1, 5).map(Number)).toEqual([sum.traces, sum.success, sum.failure, sum.unknown]);
    expect(Number(fields[5])).toBeCloseTo(sum.success / (sum.success + sum.failure), 10);
    const [low, high] = wilson(sum.success, sum.success + sum.failure);
    expect(Number(fields[6])).toBeCloseTo(low, 8);
    expect(Number(fields[7])).toBeCloseTo(high, 8);
    expect(fields.slice(14, 17).map(Number)).toEqual([day.B.success + day.B.failure + day.B.unknown, day.B.success, day.B.failure]);
  }
});

test("dragging across the outcomes chart zooms in and writes the range into the URL", async ({ page }) => {
  await openEvolution(page);
  const plot = await chart(page, "Outcomes").locator(".recharts-cartesian-grid").first().boundingBox();
  expect(plot).not.toBeNull();
  const y = plot!.y + plot!.height / 2;
  await page.mouse.move(plot!.x + plot!.width * 0.5, y);
  await page.waitForTimeout(150);
  await page.mouse.down();
  await page.mouse.move(plot!.x + plot!.width * 0.75, y, { steps: 12 });
  await page.mouse.move(plot!.x + plot!.width * 0.95, y, { steps: 12 });
  await page.mouse.up();
  await expect(page).toHaveURL(/[?&]from=[^&]+&to=[^&]+/);
  expect(new URL(page.url()).searchParams.get("range")).toBeNull();
  const from = Date.parse(new URL(page.url()).searchParams.get("from")!);
  const to = Date.parse(new URL(page.url()).searchParams.get("to")!);
  expect(to - from).toBeLessThan(30 * DAY_MS);
  await expect(page.getByRole("button", { name: "Reset zoom" })).toBeVisible();
  // Back in the browser's history is the unzoomed range.
  await page.getByRole("button", { name: "Reset zoom" }).click();
  await expect(page).not.toHaveURL(/[?&]from=/);
});

test("a version flag opens that version's diff in History", async ({ page }) => {
  await openEvolution(page);
  const flag = chart(page, "Outcomes").getByRole("link", { name: /^v1–v2 \(2 versions\):.*Open the diff$/ });
  await expect(flag).toBeAttached();
  await flag.click();
  await expect(page).toHaveURL(new RegExp(`/playbooks/${playbookId}/history\\?from=1&to=2$`));
  await expect(page.getByRole("region", { name: "Section strategies_and_insights" }).locator("ins")).toContainText([ADDED]);
});

test("clicking a bucket of the outcomes chart opens the trace explorer filtered to it", async ({ page }) => {
  await openEvolution(page);
  const plot = await chart(page, "Outcomes").locator(".recharts-cartesian-grid").first().boundingBox();
  expect(plot).not.toBeNull();
  // 30 daily buckets end with today; the fixture's middle day is the 28th.
  const day = FIXTURE[1]!;
  const index = 29 - day.daysAgo;
  const x = plot!.x + ((index + 0.5) / 30) * plot!.width;
  const y = plot!.y + plot!.height * 0.6;
  await page.mouse.move(x, y);
  await page.waitForTimeout(150);
  await page.mouse.down();
  await page.mouse.up();
  const selected = page.getByRole("region", { name: "Selected bucket" });
  await expect(selected).toContainText(`${totals(day).traces} traces`);
  // The bucket panel lists all variants first, then each variant: take the all-variants link.
  await selected
    .getByRole("link", { name: `Failures (${totals(day).failure})` })
    .first()
    .click();

  const start = utcDay(day.daysAgo);
  await expect(page).toHaveURL(/\/traces\?/);
  const params = new URL(page.url()).searchParams;
  expect(params.get("playbook")).toBe(playbookId);
  expect(params.get("outcome")).toBe("failure");
  expect(params.get("start")).toBe(start.toISOString());
  expect(params.get("end")).toBe(new Date(start.getTime() + DAY_MS).toISOString());
  const rows = page.getByRole("table", { name: "Traces" }).getByRole("rowgroup").last().getByRole("row");
  await expect(rows).toHaveCount(totals(day).failure);
  await expect(page.getByRole("button", { name: "Clear the time span" })).toBeVisible();
});

test("the variant filter narrows every chart to one variant and stays in the URL", async ({ page }) => {
  await openEvolution(page);
  await page.getByRole("combobox", { name: "Variant" }).click();
  await page.getByRole("option", { name: "B", exact: true }).click();
  await expect(page).toHaveURL(/[?&]variant=B(&|$)/);
  await expect(page.getByText("Updating…")).toHaveCount(0);
  const table = (await showData(page, "Outcomes")).getByRole("table", { name: /^Outcomes · / });
  const day = FIXTURE[1]!;
  const cells = table.getByRole("row", { name: new RegExp(`^${dayLabel(utcDay(day.daysAgo))}\\b`) }).getByRole("cell");
  await expect(cells.nth(0)).toHaveText(String(day.B.success + day.B.failure + day.B.unknown));
  await expect(cells.nth(2)).toHaveText(String(day.B.failure));
});

test("a playbook without traces says what will appear and shows the request to post one", async ({ page }) => {
  const emptyId = await seedSmallPlaybook(`Evolution empty ${Date.now()}`);
  await openPage(page, `/playbooks/${emptyId}/evolution`);
  const outcomes = chart(page, "Outcomes");
  await expect(outcomes.getByRole("heading", { name: "No traces yet" })).toBeVisible();
  await expect(outcomes).toContainText("curl -s -X POST");
  await expect(outcomes).toContainText('"timestamp"');
});

test("the studio overview lists the playbook with its rate, change, traces and pending deltas, and sorts", async ({ page }) => {
  await openPage(page, "/playbooks?range=7d");
  const overview = page.getByRole("table", { name: "Studio overview" });
  const row = overview.getByRole("row").filter({ hasText: playbookName });
  const sum = FIXTURE.map(totals).reduce((a, b) => ({
    traces: a.traces + b.traces,
    success: a.success + b.success,
    failure: a.failure + b.failure,
    unknown: a.unknown + b.unknown,
  }));
  await expect(row.getByRole("cell").nth(0)).toContainText(percent(sum.success / (sum.success + sum.failure)));
  await expect(row.getByRole("cell").nth(2)).toHaveText(String(sum.traces));
  await expect(row.getByRole("img", { name: /^Success rate over 7 buckets, 3 with a rate/ })).toBeVisible();
  await overview.getByRole("button", { name: "Traces" }).click();
  await expect(page).toHaveURL(/[?&]sort=traces(&|$)/);
  await expect(overview.getByRole("columnheader", { name: "Traces" })).toHaveAttribute("aria-sort", "descending");
  await row.getByRole("link", { name: playbookName }).click();
  await expect(page).toHaveURL(new RegExp(`/playbooks/${playbookId}/evolution$`));
});
