// The whole ACE loop with no API key: the example Python agent (public/examples/ace_agent.py) posts
// 100 traces over HTTP for a copy of the demo playbook; the offline reflector and curator run in the
// background; a person only approves. Then the counters have moved and the lesson is in the playbook.
import { expect, test } from "@playwright/test";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BASE_URL } from "./base-url";
import { api, openPlaybookTab, waitForApp } from "./support";

const run = promisify(execFile);
const AGENT = fileURLToPath(new URL("../public/examples/ace_agent.py", import.meta.url));
const DEMO = fileURLToPath(new URL("../prisma/seed/customer-service.kayba.json", import.meta.url));

test("an agent posts 100 traces; counters update and the curator's delta waits for approval", async ({ page }) => {
  test.setTimeout(180_000);
  const name = `Customer service (agent loop ${Date.now()})`;
  const { playbookId } = await api.playbook.import.mutate({
    content: readFileSync(DEMO, "utf8"),
    fileName: "customer-service.kayba.json",
    target: { kind: "new", name },
  });
  const before = await api.playbook.bullets.query({ playbookId, limit: 500 });
  const observations = (items: typeof before.items) =>
    items.reduce((sum, bullet) => sum + bullet.helpful + bullet.harmful + bullet.neutral, 0);

  const { stdout } = await run("python3", [AGENT, "--base-url", BASE_URL, "--playbook", name, "--traces", "100", "--run-id", "e2e"]);
  expect(stdout).toContain("Posted 100 traces");
  expect(stdout).toContain("100 stored");

  // Reflection runs in the background: every trace reflected, the curator run after them finished.
  await expect
    .poll(
      async () => {
        const status = await api.runs.status.query({ playbookId });
        return status.unreflected + status.queue.queued + status.queue.running;
      },
      { timeout: 150_000, intervals: [1_000] },
    )
    .toBe(0);
  const after = await api.playbook.bullets.query({ playbookId, limit: 500 });
  // Each trace cites two bullets, each tagged once.
  expect(observations(after.items) - observations(before.items)).toBe(200);

  const pending = await api.delta.list.query({ playbookId, origin: "curator", status: "pending", limit: 50 });
  expect(pending.items.length).toBeGreaterThan(0);

  // Posting the same traces again stores nothing new.
  const { stdout: again } = await run("python3", [AGENT, "--base-url", BASE_URL, "--playbook", name, "--traces", "100", "--run-id", "e2e"]);
  expect(again).toContain("0 stored, 100 already there");

  // The one manual step: a person approves the curator's proposal in the queue.
  await openPlaybookTab(page, playbookId, "review");
  await waitForApp(page);
  await expect(page.getByText(/Curator run/).first()).toBeVisible();
  await page
    .getByRole("button", { name: /^Approve/ })
    .first()
    .click();
  await expect(page.getByText(/Delta approved and applied as version \d+\./)).toBeVisible();

  const approved = await api.delta.list.query({ playbookId, origin: "curator", status: "applied", limit: 50 });
  expect(approved.items.length).toBe(1);
  const added = await api.playbook.bullets.query({ playbookId, limit: 500 });
  expect(added.items.length).toBeGreaterThan(after.items.length);
});
