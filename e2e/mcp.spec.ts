// A coding agent's session over MCP, scripted with the SDK's own Client against the running studio
// (Streamable HTTP at /api/mcp, no key on a laptop): the before-task prompt and search_bullets, then
// record_outcome and propose_lesson; a person then finds the lesson in the playbook's review queue,
// badged as a coding agent's.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, test } from "@playwright/test";
import { BASE_URL } from "./base-url";
import { api, openPlaybookTab, seedSmallPlaybook } from "./support";

async function tool(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

test("a coding agent fetches bullets, reports its outcome and proposes a lesson that waits in the review queue", async ({ page }) => {
  test.setTimeout(120_000);
  const name = `Coding agent ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);
  const client = new Client({ name: "scripted-coding-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE_URL}/api/mcp?playbook=${encodeURIComponent(name)}`)));

  // Before the task: the prompt says what to do, search_bullets gives the bullets that apply.
  const before = await client.getPrompt({ name: "before_task", arguments: { task: "Fix the date comparison in the invoice report" } });
  expect(JSON.stringify(before.messages)).toContain("search_bullets");
  const found = await tool(client, "search_bullets", { query: "timezone conversions when comparing dates", k: 3 });
  const bullets = found.bullets as { id: string }[];
  expect(bullets[0]?.id).toBe("mis-00004");

  // After the task: the outcome, then the lesson it taught.
  const recorded = await tool(client, "record_outcome", {
    task: "Fix the date comparison in the invoice report",
    outcome: "failure",
    citedBulletIds: ["mis-00004"],
    summary: "Converted both dates as [mis-00004] says, but the report still compared local dates.",
    errors: ["AssertionError: expected 2026-11-02 to equal 2026-11-01"],
  });
  const lesson = "Compare invoice dates as UTC calendar days, never in the server's local zone.";
  const proposed = await tool(client, "propose_lesson", {
    content: lesson,
    section: "common_mistakes_to_avoid",
    rationale: "The invoice report failed around midnight in UTC+1.",
    traceId: recorded.traceId,
  });
  expect(proposed.status).toBe("pending");
  await client.close();

  const queue = await api.delta.list.query({ playbookId, status: "pending", origin: "agent", limit: 10 });
  expect(queue.items.map((delta) => delta.id)).toEqual([proposed.deltaId]);

  await openPlaybookTab(page, playbookId, "review");
  const panel = page.getByRole("article", { name: "Delta" });
  await expect(panel).toContainText(lesson);
  await expect(panel).toContainText("The invoice report failed around midnight in UTC+1.");
  await expect(page.getByText("Coding agent").first()).toBeVisible();
  await expect(panel.getByRole("button", { name: "Approve", exact: true })).toBeEnabled();
});
