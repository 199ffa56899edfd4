// Experiments end to end: a curator creates an experiment in the browser, agents are assigned and
// report outcomes over the HTTP API (/api/v1/experiments/{key}/assign, /api/v1/traces), and the
// results page names the winner with its interval bar; a skewed split raises the SRM banner; ship,
// stop, re-weighting into a new phase, and shipping a pinned older version with its rollback. Each
// test seeds its own small playbook.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, openPage, postTraces, proposeDelta, seedSmallPlaybook, type TraceBody } from "./support";

type ExperimentTrace = TraceBody & { experiment: string; unitId: string; taskId?: string };

interface Assignment {
  inExperiment: boolean;
  variant: string | null;
  reason: string | null;
}

interface ResultsBody {
  srm: { flagged: boolean };
  comparisons: { variant: string; ci95: [number, number] | null; adjustedPValue: number | null; significant: boolean }[];
}

async function assign(request: APIRequestContext, key: string, unitId: string): Promise<Assignment> {
  const response = await request.post(`/api/v1/experiments/${key}/assign`, { data: { unitId } });
  if (!response.ok()) throw new Error(`assign answered ${response.status()}: ${await response.text()}`);
  return response.json();
}

async function createExperiment(request: APIRequestContext, body: Record<string, unknown>): Promise<void> {
  const response = await request.post("/api/v1/experiments", { data: body });
  if (response.status() !== 201) throw new Error(`POST /api/v1/experiments answered ${response.status()}: ${await response.text()}`);
}

async function results(request: APIRequestContext, key: string): Promise<ResultsBody> {
  const response = await request.get(`/api/v1/experiments/${key}/results`);
  if (!response.ok()) throw new Error(`results answered ${response.status()}: ${await response.text()}`);
  return response.json();
}

/** Whether the i-th unit of a variant succeeds: 3 in 10 for the control A, 7 in 10 for the others. */
function succeeds(variant: string, index: number): boolean {
  return index % 10 < (variant === "A" ? 3 : 7);
}

/** One decided trace per unit, as an agent that was assigned `variant` reports it. */
function tracesFor(playbook: string, experiment: string, units: [unitId: string, variant: string][]): ExperimentTrace[] {
  return units.map(([unitId, variant], index) => ({
    playbook,
    experiment,
    unitId,
    variant,
    externalId: `${experiment}-${unitId}`,
    task: `Refund order ${1000 + index}`,
    outcome: succeeds(variant, index) ? "success" : "failure",
    durationMs: 1_000 + (index % 7) * 100,
    usage: { inputTokens: 1_200, outputTokens: 200 },
  }));
}

function uniqueKey(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1000)}`;
}

function resultsTable(page: Page) {
  return page.getByRole("table", { name: "Results: Success rate" });
}

test("an experiment created in the UI, fed by agents over HTTP, names a significant winner with its interval bar, and shipping it ends assignment", async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  const playbook = `Experiments ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(playbook);

  await openPage(page, `/experiments/new?playbook=${playbookId}`);
  const name = `Curated lessons ${Date.now()}`;
  const about = page.getByRole("region", { name: "Experiment" });
  await about.getByLabel("Name", { exact: true }).fill(name);
  // The key follows the name until edited.
  const keyField = about.getByLabel("Key", { exact: true });
  await expect(keyField).toHaveValue(/^curated-lessons-\d+$/);
  const key = await keyField.inputValue();
  await about.getByLabel("Hypothesis").fill("The curated playbook raises the success rate.");

  // Live validation of the weights, and the even split.
  const variants = page.getByRole("list", { name: "Variants" });
  await variants.getByRole("listitem", { name: "Variant 2" }).getByLabel("Variant 2 weight (%)").fill("60");
  await expect(page.getByText("The weights add up to 110 %")).toBeVisible();
  await page.getByRole("button", { name: "Split evenly" }).click();
  await expect(page.getByText("the weights add up to 100 %")).toBeVisible();

  // The sample-size calculator: 30 % → 70 % needs a few dozen units per variant.
  const sample = page.getByRole("region", { name: "Sample size" });
  await sample.getByLabel("Baseline success rate (%)").fill("30");
  await sample.getByLabel("Minimum detectable effect (points)").fill("40");
  await expect(sample.getByRole("status")).toContainText("units per variant");
  await sample.getByRole("button", { name: "Use as the planned sample" }).click();
  await expect(sample.getByLabel("Planned units per variant")).toHaveValue(/^\d+$/);

  await page.getByRole("button", { name: "Create and start" }).click();
  await expect(page).toHaveURL(new RegExp(`/experiments/${key}$`));
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(page.getByText("Running", { exact: true })).toBeVisible();

  // 240 agents ask for their variant, then report one outcome each.
  const units: [string, string][] = [];
  for (let start = 0; start < 240; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: 20 }, async (_, offset) => {
        const unitId = `agent-${start + offset}`;
        const assignment = await assign(request, key, unitId);
        expect(assignment.inExperiment).toBe(true);
        return [unitId, assignment.variant!] as [string, string];
      }),
    );
    units.push(...batch);
  }
  expect(new Set(units.map(([, variant]) => variant))).toEqual(new Set(["A", "B"]));
  const ingest = await postTraces(request, tracesFor(playbook, key, units));
  expect(ingest.created).toBe(240);

  await page.reload();
  await expect(page.getByRole("region", { name: "Summary" })).toContainText("Variant B beats control A");
  const winner = resultsTable(page).getByRole("row").filter({ hasText: "Significant winner" });
  await expect(winner).toHaveCount(1);
  await expect(winner).toContainText("B");
  await expect(winner.locator('[data-interval-bar="better"] .recharts-bar-rectangle path')).toBeVisible();

  // The figures on the page are the server's: the interval and the adjusted p of B against A.
  const stored = await results(request, key);
  const comparison = stored.comparisons.find((c) => c.variant === "B")!;
  expect(comparison.significant).toBe(true);
  const [low, high] = comparison.ci95!;
  await expect(winner).toContainText(`+${(low * 100).toFixed(1)} pp to +${(high * 100).toFixed(1)} pp`);
  await expect(winner).toContainText(comparison.adjustedPValue! < 0.001 ? "< 0.001" : comparison.adjustedPValue!.toFixed(3));
  await expect(page.getByRole("alert").filter({ hasText: "Sample ratio mismatch" })).toHaveCount(0);

  // Ship B: the decision is recorded, the experiment stops, and agents get no variant any more.
  await page.getByRole("button", { name: "Ship a variant" }).click();
  const dialog = page.getByRole("dialog", { name: `Ship a variant of “${name}”` });
  await dialog.getByLabel("Note").fill("B wins by a wide margin.");
  await dialog.getByRole("button", { name: "Ship B" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Shipped variant B", { exact: true })).toBeVisible();
  await expect(page.getByText("“B wins by a wide margin.”")).toBeVisible();
  const after = await assign(request, key, "agent-new");
  expect(after).toMatchObject({ inExperiment: false, variant: null, reason: "stopped" });

  // The list shows it shipped.
  await openPage(page, `/experiments?playbook=${playbookId}`);
  await expect(page.getByRole("table", { name: "Experiments" }).getByRole("row").filter({ hasText: name })).toContainText("Shipped B");
});

test("a skewed split shows the SRM banner above everything, on the page and in the list", async ({ page, request }) => {
  const playbook = `SRM ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(playbook);
  const key = uniqueKey("srm");
  await createExperiment(request, {
    key,
    name: `Skewed ${key}`,
    playbook,
    status: "running",
    variants: [
      { key: "A", weight: 0.5, latest: true },
      { key: "B", weight: 0.5, noPlaybook: true },
    ],
  });
  // Agents that pick their own variant, most of them A: 300 against 120 for a 50/50 split.
  const units: [string, string][] = [
    ...Array.from({ length: 300 }, (_, i): [string, string] => [`a-${i}`, "A"]),
    ...Array.from({ length: 120 }, (_, i): [string, string] => [`b-${i}`, "B"]),
  ];
  await postTraces(request, tracesFor(playbook, key, units));
  expect((await results(request, key)).srm.flagged).toBe(true);

  await openPage(page, `/experiments/${key}`);
  const banner = page.getByRole("alert").filter({ hasText: "Sample ratio mismatch: the results cannot be trusted" });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText("A 300, B 120");
  const bannerBox = await banner.boundingBox();
  const headingBox = await page.getByRole("heading", { level: 1 }).boundingBox();
  expect(bannerBox!.y).toBeLessThan(headingBox!.y);

  await openPage(page, `/experiments?playbook=${playbookId}`);
  await expect(page.getByRole("table", { name: "Experiments" }).getByRole("row").filter({ hasText: key })).toContainText("SRM");
});

test("stopping a running experiment ends assignment", async ({ page, request }) => {
  const playbook = `Stop ${Date.now()}`;
  await seedSmallPlaybook(playbook);
  const key = uniqueKey("stop");
  await createExperiment(request, {
    key,
    name: `Stop ${key}`,
    playbook,
    status: "running",
    variants: [{ key: "A" }, { key: "B", noPlaybook: true }],
  });
  expect((await assign(request, key, "unit-1")).inExperiment).toBe(true);

  await openPage(page, `/experiments/${key}`);
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: `Stop “Stop ${key}”` });
  await dialog.getByLabel("Note").fill("Paused for the holidays.");
  await dialog.getByRole("button", { name: "Stop experiment" }).click();
  await expect(page.getByText("Stopped without shipping a variant")).toBeVisible();
  await expect(page.getByText("Stopped", { exact: true })).toBeVisible();
  expect(await assign(request, key, "unit-2")).toMatchObject({ inExperiment: false, reason: "stopped" });
});

test("changing the weights of a running experiment warns, asks for confirmation and starts a new phase", async ({ page, request }) => {
  const playbook = `Phases ${Date.now()}`;
  await seedSmallPlaybook(playbook);
  const key = uniqueKey("phase");
  await createExperiment(request, {
    key,
    name: `Phases ${key}`,
    playbook,
    status: "running",
    variants: [{ key: "A" }, { key: "B", noPlaybook: true }],
  });

  await openPage(page, `/experiments/${key}`);
  await page.getByRole("button", { name: "Edit weights" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit weights and coverage" });
  await dialog.getByLabel("Variant A weight (%)").fill("70");
  await dialog.getByLabel("Variant B weight (%)").fill("30");
  await expect(dialog.getByText("This starts phase 2")).toBeVisible();
  const confirm = dialog.getByRole("button", { name: "Start phase 2" });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel("I understand that phase 2 starts with a new seed and is analysed on its own.").check();
  await confirm.click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Phase 2 started with the new split")).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Phase" })).toContainText("2 (current)");

  const definition = await (await request.get(`/api/v1/experiments/${key}`)).json();
  expect(definition).toMatchObject({ weights: [0.7, 0.3], phase: { number: 2 } });
});

test("shipping a variant pinned to an older version rolls the playbook back to it as a new version", async ({ page, request }) => {
  test.setTimeout(90_000);
  const playbook = `Rollback ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(playbook);
  const deltaId = await proposeDelta(playbookId, [{ type: "add", section: "strategies_and_insights", content: "Retry refunds at once." }]);
  await api.delta.approve.mutate({ deltaId });
  const before = (await api.playbook.get.query({ playbookId })).version;
  expect(before).toBeGreaterThan(1);

  const key = uniqueKey("pinned");
  await createExperiment(request, {
    key,
    name: `Pinned ${key}`,
    playbook,
    status: "running",
    variants: [
      { key: "A", name: "Latest", weight: 0.5, latest: true },
      { key: "B", name: "Before the change", weight: 0.5, playbookVersion: before - 1 },
    ],
  });
  const units: [string, string][] = [];
  for (let i = 0; i < 160; i++) units.push([`u-${i}`, (await assign(request, key, `u-${i}`)).variant!]);
  await postTraces(request, tracesFor(playbook, key, units));

  await openPage(page, `/experiments/${key}`);
  await expect(page.getByRole("region", { name: "Summary" })).toContainText("Variant B beats control A");
  await page.getByRole("button", { name: "Ship a variant" }).click();
  const dialog = page.getByRole("dialog", { name: `Ship a variant of “Pinned ${key}”` });
  const rollback = dialog.getByRole("checkbox", { name: new RegExp(`Roll “${playbook}” back to version ${before - 1}`) });
  await expect(rollback).toBeChecked();
  await dialog.getByRole("button", { name: "Ship B" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText(`The playbook was rolled back to version ${before - 1}`)).toBeVisible();
  expect((await api.playbook.get.query({ playbookId })).version).toBe(before + 1);
});
