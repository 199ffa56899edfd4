// Reflector and curator runs end to end, with no API key (the offline provider): agents post traces
// over HTTP, runs work in the background, and a person watches them on the Runs tab, reads traces and
// runs, and approves what the curator proposes. Each test seeds its own small playbook.
import { expect, test, type Page } from "@playwright/test";
import { api, openPage, postTraces, runsPending, seedSmallPlaybook, type TraceBody } from "./support";

function playbookTab(page: Page, name: string | RegExp) {
  return page.getByRole("navigation", { name: "Playbook" }).getByRole("link", { name });
}

function bulletRow(page: Page, id: string) {
  return page
    .getByRole("list", { name: "Bullets" })
    .getByRole("listitem")
    .filter({ hasText: `[${id}]` });
}

async function backgroundDone(playbookId: string) {
  await expect.poll(() => runsPending(playbookId), { timeout: 60_000, intervals: [500, 1_000] }).toBe(0);
}

const RATE_LIMIT = "RateLimitError: 429 Too Many Requests from /payments/refund";

/** Six successes citing str-00001 and mis-00004, four failures citing str-00002 with the same error. */
function supportTraces(playbook: string): TraceBody[] {
  const successes = Array.from({ length: 6 }, (_, i): TraceBody => ({
    playbook,
    externalId: `ok-${i}`,
    task: `Tell the customer where order ${1000 + i} is`,
    reasoning: "Following [str-00001] I checked the field types, and per [mis-00004] converted the time zone.",
    output: "Shipped yesterday, arriving Friday.",
    citedBulletIds: ["str-00001", "mis-00004"],
    outcome: "success",
    durationMs: 1_200 + i,
    usage: { inputTokens: 1_500, outputTokens: 180 },
    variant: "A",
  }));
  const failures = Array.from({ length: 4 }, (_, i): TraceBody => ({
    playbook,
    externalId: `fail-${i}`,
    task: "Refund order 1042 through the payments API",
    reasoning: "Per [str-00002] I retried the refund at once, four times.",
    output: "The refund could not be made.",
    citedBulletIds: ["str-00002"],
    outcome: "failure",
    feedback: { errors: [RATE_LIMIT] },
    variant: "B",
  }));
  return [...successes, ...failures];
}

test("traces posted over HTTP are reflected in the background, move the counters, and the curator's delta adds a lesson once approved", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const name = `Runs ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);

  // The curator waits to be asked (a new setting); the reflector stays automatic.
  await openPage(page, `/playbooks/${playbookId}/settings`);
  await page.getByRole("combobox", { name: "When to curate" }).click();
  await page.getByRole("option", { name: "Manual" }).click();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Settings saved as version 2")).toBeVisible();

  const ingest = await postTraces(request, supportTraces(name));
  expect(ingest.created).toBe(10);

  await playbookTab(page, "Runs").click();
  await expect(page).toHaveURL(new RegExp(`/playbooks/${playbookId}/runs$`));
  await expect(page.getByRole("region", { name: "Provider", exact: true })).toContainText("Offline (rule-based, no LLM)");
  // Reflection is automatic: wait for it (the page polls while runs are queued or running).
  await backgroundDone(playbookId);
  await expect(page.getByRole("region", { name: "Reflector", exact: true })).toContainText("0 traces not reflected yet");
  const curator = page.getByRole("region", { name: "Curator", exact: true });
  await expect(curator).toContainText("10 reflections wait for the curator");
  const runs = page.getByRole("table", { name: "Runs" });
  await expect(runs.getByRole("row").filter({ hasText: "Reflector" })).toHaveCount(10);
  await expect(runs.getByRole("row").filter({ hasText: "offline" }).first()).toBeVisible();
  const traceRows = page.getByRole("table", { name: "Traces" }).getByRole("rowgroup").last().getByRole("row");
  await expect(traceRows).toHaveCount(10);
  await expect(traceRows.filter({ hasNotText: "Not reflected" })).toHaveCount(10);

  // The reflector's tags are observations: the counters moved without a review.
  await playbookTab(page, "Bullets").click();
  await expect(bulletRow(page, "str-00001").getByTitle("9 helpful")).toBeVisible();
  await expect(bulletRow(page, "mis-00004").getByTitle("8 helpful")).toBeVisible();
  await expect(bulletRow(page, "str-00002").getByTitle("8 harmful")).toBeVisible();

  await playbookTab(page, "Runs").click();
  await page.getByRole("region", { name: "Curator", exact: true }).getByRole("button", { name: "Curate now" }).click();
  await expect(page.getByText("Curator run queued.")).toBeVisible();
  await backgroundDone(playbookId);
  await expect(page.getByRole("region", { name: "Curator", exact: true })).toContainText("0 reflections wait for the curator");
  const curatorRun = page.getByRole("table", { name: "Runs" }).getByRole("row").filter({ hasText: "Curator" });
  await expect(curatorRun).toContainText("Succeeded");
  await expect(playbookTab(page, /Review/)).toContainText("1 pending");

  // The curator's proposal waits in the queue; approving it adds the lesson.
  await curatorRun.getByRole("link", { name: /Open the delta/ }).click();
  const panel = page.getByRole("article", { name: "Delta" });
  await expect(panel).toContainText("Curator run");
  await expect(panel).toContainText(RATE_LIMIT);
  await panel.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByText(/Delta approved and applied as version \d+\./)).toBeVisible();

  await playbookTab(page, "Bullets").click();
  const lesson = page.getByRole("list", { name: "Bullets" }).getByRole("listitem").filter({ hasText: "anticipate and handle the error" });
  await expect(lesson).toHaveCount(1);
  // Four runs hit the same error: one lesson, in its general form.
  await expect(lesson).toContainText(RATE_LIMIT);
  await expect(lesson).not.toContainText("Refund order 1042");
});

test("a trace's page shows what the agent sent and links its cited bullets; Reflect now reflects it once and lists the run", async ({
  page,
  request,
}) => {
  const name = `Trace page ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);
  // The reflector waits to be asked, so the trace stays unreflected until Reflect now.
  await api.playbook.updateSettings.mutate({ playbookId, settings: { reflectorMode: "manual" } });
  const task = "Refund order 2077 for a customer who was charged twice";
  await postTraces(request, [
    {
      playbook: name,
      externalId: "trace-page-1",
      task,
      reasoning: "Per [str-00002] I retried the payment call immediately.\nThen I gave up.",
      output: "Refund failed.",
      citedBulletIds: ["str-00002", "zzz-99999"],
      outcome: "failure",
      feedback: {
        groundTruth: "Refund issued once",
        errors: ["HTTP 409: refund already in progress"],
        testResults: "1 failed: test_refund_is_idempotent",
        notes: "The second charge was a duplicate.",
      },
      durationMs: 4_200,
      usage: { inputTokens: 12_345, outputTokens: 678 },
      variant: "B",
      metadata: { model: "gpt-4.1-mini", attempt: 2 },
    },
  ]);

  await openPage(page, `/traces?playbook=${playbookId}`);
  const row = page.getByRole("table", { name: "Traces" }).getByRole("row").filter({ hasText: task });
  await expect(row).toContainText("Failure");
  await expect(row).toContainText("Not reflected");
  await row.getByRole("link", { name: task }).click();

  await expect(page.getByRole("heading", { level: 1, name: task })).toBeVisible();
  await expect(page.getByRole("region", { name: "Output", exact: true })).toContainText("Refund failed.");
  const feedback = page.getByRole("region", { name: "Feedback" });
  await expect(feedback).toContainText("Refund issued once");
  await expect(feedback).toContainText("HTTP 409: refund already in progress");
  await expect(feedback).toContainText("test_refund_is_idempotent");
  const details = page.getByRole("region", { name: "Details", exact: true });
  await expect(details).toContainText("12,345 in · 678 out");
  await expect(details).toContainText("4.2 s");
  await expect(page.getByRole("region", { name: /^Metadata/ })).toContainText("gpt-4.1-mini");

  const cited = page.getByRole("region", { name: /^Cited bullets/ });
  await expect(cited.getByRole("link", { name: "[str-00002]" })).toHaveAttribute("href", `/playbooks/${playbookId}?bullet=str-00002`);
  await expect(cited.getByRole("listitem").filter({ hasText: "[zzz-99999]" })).toContainText("Not in the playbook");
  await expect(cited.getByTitle("4 harmful")).toBeVisible();
  const runs = page.getByRole("region", { name: /^Runs/ });
  await expect(runs).toContainText("No run has read this trace yet");

  await page.getByRole("button", { name: "Reflect now" }).click();
  await expect(page.getByText("1 reflector run queued.")).toBeVisible();
  // The page follows the run to its end: listed, succeeded, and the failure counted against str-00002.
  await expect(runs.getByRole("listitem").filter({ hasText: "Succeeded" })).toHaveCount(1);
  await expect(runs).toContainText("offline");
  await expect(cited.getByTitle("5 harmful")).toBeVisible();
  // A trace is reflected once.
  await expect(page.getByRole("button", { name: "Reflect now" })).toBeDisabled();

  await cited.getByRole("link", { name: "[str-00002]" }).click();
  await expect(page).toHaveURL(new RegExp(`/playbooks/${playbookId}\\?bullet=str-00002$`));
  await expect(page.getByRole("dialog", { name: "[str-00002]" })).toBeVisible();
});

test("a run's page shows the offline provider, the tags it gave and what its rules read and returned", async ({ page, request }) => {
  const name = `Run page ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);
  await postTraces(request, [
    {
      playbook: name,
      task: "Convert the meeting time to the customer's time zone",
      reasoning: "Using [mis-00004].",
      output: "15:00 CET",
      outcome: "success",
    },
  ]);
  await backgroundDone(playbookId);

  await openPage(page, `/runs?playbook=${playbookId}`);
  const row = page.getByRole("table", { name: "Runs" }).getByRole("row").filter({ hasText: "Reflector" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("offline");
  await expect(row).toContainText("Succeeded");
  await row.getByRole("link", { name: /^Reflector/ }).click();

  await expect(page.getByRole("heading", { level: 1, name: /Reflector run/ })).toContainText("Succeeded");
  const usage = page.getByLabel("Provider and usage");
  await expect(usage).toContainText("Provideroffline");
  await expect(usage).toContainText("Modelrules");
  await expect(usage).toContainText("TriggerAutomatic");

  const output = page.getByRole("region", { name: "Output", exact: true });
  const tag = output.getByRole("listitem").filter({ hasText: "[mis-00004]" });
  await expect(tag).toContainText("Helpful");
  await expect(tag.getByRole("link", { name: "[mis-00004]" })).toHaveAttribute("href", `/playbooks/${playbookId}?bullet=mis-00004`);
  await output.getByRole("tab", { name: "JSON" }).click();
  await expect(output).toContainText('"bulletTags"');

  const exchange = page.getByRole("region", { name: "Rules input and output" });
  await expect(exchange).toContainText("Rules input");
  await expect(exchange).toContainText("Rules output");
  await expect(page.getByRole("region", { name: "Delta", exact: true })).toContainText("Auto-applied");
  await expect(page.getByRole("region", { name: /^Traces/ }).getByRole("link", { name: /Convert the meeting time/ })).toBeVisible();
});

test("the trace explorer filters by outcome and search, and keeps the filters in the URL", async ({ page, request }) => {
  const name = `Explorer ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);
  await postTraces(request, [
    { playbook: name, task: "Look up the shipping address of order 7", outcome: "success" },
    { playbook: name, task: "Cancel the subscription of customer 8", outcome: "failure", feedback: { errors: ["403 Forbidden"] } },
    { playbook: name, task: "Cancel order 9 before it ships", outcome: "unknown" },
  ]);

  await openPage(page, `/traces?playbook=${playbookId}`);
  const rows = page.getByRole("table", { name: "Traces" }).getByRole("rowgroup").last().getByRole("row");
  await expect(rows).toHaveCount(3);
  await expect(page.getByText("3 traces", { exact: true })).toBeVisible();

  await page.getByRole("combobox", { name: "Outcome" }).click();
  await page.getByRole("option", { name: "Failure" }).click();
  await expect(page).toHaveURL(/[?&]outcome=failure/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Cancel the subscription of customer 8");

  await page.getByRole("combobox", { name: "Outcome" }).click();
  await page.getByRole("option", { name: "Any" }).click();
  await expect(page).not.toHaveURL(/outcome=/);
  await page.getByRole("searchbox", { name: /Search traces/ }).fill("cancel");
  await expect(page).toHaveURL(/[?&]q=cancel/);
  await expect(rows).toHaveCount(2);
  await expect(page.getByText("2 traces", { exact: true })).toBeVisible();

  // A shared link opens with the same filters.
  await openPage(page, `/traces?playbook=${playbookId}&q=cancel&outcome=unknown`);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Cancel order 9 before it ships");
});

test("the studio budget is set from the Runs page and shows on a playbook's Runs tab", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  try {
    await openPage(page, "/runs");
    await page.getByRole("button", { name: "Studio budget" }).click();
    const dialog = page.getByRole("dialog", { name: "Studio budget" });
    await dialog.getByLabel(/Monthly LLM tokens/).fill("500");
    await dialog.getByRole("button", { name: "Save budget" }).click();
    await expect(dialog.getByText("Enter a whole number from 1,000 to 10,000,000,000.")).toBeVisible();
    await dialog.getByLabel(/Monthly LLM tokens/).fill("1,000,000");
    await dialog.getByLabel(/Monthly LLM cost/).fill("$25");
    await dialog.getByRole("button", { name: "Save budget" }).click();
    await expect(page.getByText("Studio budget: 1,000,000 tokens and $25.00 a month")).toBeVisible();

    await openPage(page, `/playbooks/${playbookId}/runs`);
    const budget = page.getByRole("region", { name: "Monthly LLM budget" });
    await expect(budget.getByRole("meter", { name: "Tokens used" })).toHaveAttribute("aria-valuetext", /of 1,000,000/);
    await expect(budget.getByRole("meter", { name: "Cost used" })).toHaveAttribute("aria-valuetext", /of \$25\.00/);
  } finally {
    await api.runs.setStudioBudget.mutate({ monthlyTokenBudget: null, monthlyCostBudgetUsd: null });
  }
});
