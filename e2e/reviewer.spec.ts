// A reviewer's day in the queue: undoing a wrong click, a queue that keeps itself current, many
// operations behind one key, and from a bullet to the traces behind it. Each test seeds its own
// small playbook over the API.
import { expect, test, type Page } from "@playwright/test";
import { api, openPage, openPlaybookTab, proposeDelta, seedSmallPlaybook } from "./support";

function deltaPanel(page: Page) {
  return page.getByRole("article", { name: "Delta" });
}

/**
 * Opens a playbook's queue and waits until the queue itself has hydrated: its part of the page can
 * hydrate after the root marks the page hydrated, and a click or key before that does nothing. The
 * shortcut legend turns active then.
 */
async function openQueue(page: Page, playbookId: string) {
  await openPlaybookTab(page, playbookId, "review");
  await expect(page.getByRole("region", { name: "Keyboard shortcuts" })).toHaveAttribute("data-active", "true");
}

test("Undo in the approval's toast reverts the new version and puts the delta back in the queue", async ({ page }) => {
  // Two page loads and two round trips: on a machine shared with other runs this takes more than the default minute.
  test.slow();
  const playbookId = await seedSmallPlaybook();
  const content = "Cache the list of supported currencies per session.";
  const deltaId = await proposeDelta(playbookId, [{ type: "add", section: "strategies_and_insights", content }]);

  await openQueue(page, playbookId);
  await deltaPanel(page).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByText("Delta approved and applied as version 2.")).toBeVisible();
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText("Approval undone as version 3: the delta waits for review again.")).toBeVisible();

  // The delta waits again, open, and the playbook no longer has the bullet active.
  await expect(deltaPanel(page)).toContainText(content);
  await expect(deltaPanel(page).getByRole("button", { name: "Approve", exact: true })).toBeEnabled();
  expect((await api.delta.get.query({ deltaId })).status).toBe("pending");
  expect((await api.playbook.bullet.query({ playbookId, externalId: "str-00005" })).status).toBe("archived");
  // The undo is in the history.
  await openPlaybookTab(page, playbookId, "history");
  await expect(page.getByRole("region", { name: "Versions" }).getByRole("listitem").first()).toContainText("Undid the approval");
});

test("an undo that would overwrite a later change is refused, and the toast says why", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await proposeDelta(playbookId, [{ type: "update", bulletId: "str-00002", content: "Back off before retrying a failed call." }]);

  await openQueue(page, playbookId);
  await deltaPanel(page).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByText("Delta approved and applied as version 2.")).toBeVisible();
  await api.delta.edit.mutate({
    playbookId,
    reason: "Sharper",
    operations: [{ type: "update", bulletId: "str-00002", content: "Back off exponentially before retrying." }],
  });
  await page.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByText("Not undone")).toBeVisible();
  await expect(page.getByText(/version 3 by local user changed \[str-00002\] after it/)).toBeVisible();
  expect((await api.playbook.bullet.query({ playbookId, externalId: "str-00002" })).content).toBe(
    "Back off exponentially before retrying.",
  );
});

test("a delta that becomes stale while it is open says so before Approve is clicked", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await proposeDelta(playbookId, [{ type: "update", bulletId: "str-00002", content: "Back off before retrying a failed call." }]);
  // The page's own timers, so the queue's next poll comes when the test says rather than whenever a busy machine gets to it.
  await page.clock.install();
  await openQueue(page, playbookId);
  const panel = deltaPanel(page);
  await expect(panel.getByRole("button", { name: "Approve", exact: true })).toBeEnabled();

  await api.delta.edit.mutate({
    playbookId,
    reason: "Meanwhile",
    operations: [{ type: "update", bulletId: "str-00002", content: "Never retry at once." }],
  });
  // No reload and no click: the queue's next poll (QUEUE_WATCH_MS, 5 s) sees the change and refetches the delta.
  await page.clock.fastForward(5_000);
  await expect(panel.getByText("Became stale while you were reviewing it", { exact: false })).toBeVisible();
  await expect(panel.getByRole("button", { name: "Approve", exact: true })).toBeDisabled();
});

test("the losing side of two approvals at once sees the conflict, and it stays after the queue refreshes", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  const deltaId = await proposeDelta(playbookId, [{ type: "tag", bulletId: "str-00001", helpful: 1 }]);
  // Hold the queue's change check still at what the page starts from, so it keeps showing the delta as pending.
  const { signature } = await api.delta.watch.query({ playbookId });
  await page.route("**/api/trpc/delta.watch?**", (route) =>
    route.fulfill({ contentType: "application/json", body: JSON.stringify([{ result: { data: { json: { signature } } } }]) }),
  );
  await openQueue(page, playbookId);
  await api.delta.approve.mutate({ deltaId });
  await deltaPanel(page).getByRole("button", { name: "Approve", exact: true }).click();

  const conflict = page.getByText("Someone changed this playbook a moment ago; nothing was applied.");
  await expect(conflict).toBeVisible();
  await expect(page.getByText(/already approved by/)).toBeVisible();
  await page.unroute("**/api/trpc/delta.watch?**");
  // Polls come and go; the message stays until dismissed.
  await page.waitForTimeout(6_000);
  await expect(conflict).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`delta=${deltaId}`));
});

test("a on a delta of more than five operations asks once before approving", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await proposeDelta(playbookId, [
    { type: "tag", bulletId: "str-00001", helpful: 1 },
    { type: "tag", bulletId: "str-00002", helpful: 1 },
    { type: "tag", bulletId: "str-00003", helpful: 1 },
    { type: "tag", bulletId: "mis-00004", helpful: 1 },
    { type: "update", bulletId: "str-00003", content: "Paginate through every page before answering, always." },
    { type: "add", section: "strategies_and_insights", content: "Log the request id of every failed call." },
  ]);
  await openQueue(page, playbookId);
  await expect(deltaPanel(page)).toContainText("6 operations");
  await page.keyboard.press("a");
  const confirm = page.getByRole("dialog", { name: "Approve all 6 operations?" });
  await expect(confirm).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(confirm).toBeHidden();
  expect((await api.history.versions.query({ playbookId })).currentVersion).toBe(1);

  await page.keyboard.press("a");
  await expect(confirm).toBeVisible();
  await page.keyboard.press("a");
  await expect(page.getByText("Delta approved and applied as version 2.")).toBeVisible();
});

test("after an approval the next delta opens at its top", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 700 });
  const playbookId = await seedSmallPlaybook();
  const tall = Array.from({ length: 5 }, (_, i) => ({
    type: "add" as const,
    section: "strategies_and_insights",
    content: `Lesson ${i}: ${"check the request and its response before the next call. ".repeat(6)}`,
  }));
  await proposeDelta(playbookId, tall, { rationale: "Second" });
  await proposeDelta(
    playbookId,
    tall.map((op, i) => ({ ...op, content: `Other ${i}: ${op.content}` })),
    { rationale: "First" },
  );
  await openQueue(page, playbookId);
  const approve = deltaPanel(page).getByRole("button", { name: "Approve", exact: true });
  await approve.scrollIntoViewIfNeeded();
  await approve.click();
  await expect(page.getByText("Delta approved and applied as version 2.")).toBeVisible();
  await expect(deltaPanel(page)).toContainText("Second");
  await expect(deltaPanel(page).getByRole("heading", { level: 2 })).toBeInViewport();
});

test("a pruning delta is titled as pruning, not by the person who asked for it", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await api.playbook.updateSettings.mutate({ playbookId, settings: { pruning: { enabled: true } } });
  await api.delta.proposePruning.mutate({ playbookId });
  await openQueue(page, playbookId);
  await expect(deltaPanel(page).getByRole("heading", { level: 2 })).toHaveText("Pruning: 1 bullet to archive");
  await expect(page.getByRole("region", { name: "Deltas" })).toContainText("Pruning: 1 bullet to archive");
});

test("a delta's evidence reads as counts, opens to its traces with task and outcome, and the operations come first", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  const { name } = await api.playbook.get.query({ playbookId });
  const ingested = await api.traces.ingest.mutate({
    traces: [
      { playbook: name, task: "Refund order 1042 through the payments API", outcome: "failure", citedBulletIds: ["str-00002"] },
      { playbook: name, task: "Tell the customer where order 7 is", outcome: "success", citedBulletIds: ["str-00002"] },
    ],
  });
  const traceIds = ingested.traces.map((trace) => trace.id);
  await api.delta.propose.mutate({
    playbookId,
    rationale: "Retries without backoff fail",
    evidence: { traceIds, runIds: [] },
    operations: [{ operation: { type: "update", bulletId: "str-00002", content: "Back off before retrying." } }],
  });
  await openQueue(page, playbookId);
  const panel = deltaPanel(page);
  await panel.getByText("2 traces", { exact: true }).click();
  const traces = panel.getByRole("list", { name: "Evidence traces" });
  await expect(traces.getByRole("listitem")).toHaveCount(2);
  await expect(traces.getByRole("listitem").first()).toContainText("Failure");
  // The operations are above the rationale.
  const operations = await panel.getByRole("heading", { name: /^Operations/ }).boundingBox();
  const why = await panel.getByRole("heading", { name: "Why" }).boundingBox();
  expect(operations && why && operations.y < why.y).toBe(true);
  await traces.getByRole("link", { name: /Refund order 1042/ }).click();
  await expect(page).toHaveURL(new RegExp(`/traces/${traceIds[0]}$`));
});

test("the bullet sheet lists the traces that cited the bullet and the deltas that changed it, linked", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  const { name } = await api.playbook.get.query({ playbookId });
  const ingested = await api.traces.ingest.mutate({
    traces: [{ playbook: name, task: "Paginate all songs of the playlist", outcome: "success", citedBulletIds: ["str-00003"] }],
  });
  const deltaId = await proposeDelta(playbookId, [
    { type: "update", bulletId: "str-00003", content: "Paginate until a page comes back empty." },
  ]);
  await api.delta.approve.mutate({ deltaId });

  await openPage(page, `/playbooks/${playbookId}?bullet=str-00003`);
  const sheet = page.getByRole("dialog", { name: "[str-00003]" });
  const cited = sheet.getByRole("list", { name: "Traces that cited it" });
  await expect(cited.getByRole("listitem")).toHaveCount(1);
  await expect(cited).toContainText("Success");
  await expect(sheet.getByRole("list", { name: "Deltas" })).toContainText("Applied");
  await cited.getByRole("link", { name: /Paginate all songs/ }).click();
  await expect(page).toHaveURL(new RegExp(`/traces/${ingested.traces[0]!.id}$`));
});
