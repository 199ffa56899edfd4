// Pinned bullets through the procedures a person uses, on embedded PGlite and PostgreSQL: a pin is a
// version like any edit (audited, undoable), ranks first in what agents are served, is held to 50
// per playbook, and a budget the pinned bullets alone exceed is refused with a 409.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_PINNED_BULLETS } from "@/server/ace/delta";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";

const { GET: getContext } = await import("@/app/api/v1/playbooks/[name]/context/route");

/** The line of a bullet in the served text: 0 is the first section's header. */
async function lineOf(name: string, bulletId: string): Promise<number> {
  const { body } = await served(name);
  return (body.context as string).split("\n").findIndex((line) => line.startsWith(`[${bulletId}]`));
}

async function served(name: string, query = "") {
  const response = await getContext(new Request(`http://localhost/api/v1/playbooks/${name}/context?format=json${query}`), {
    params: Promise.resolve({ name }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe.each(testEngines())("pinned bullets, on %s", (engine) => {
  let database: TestDatabase;
  let playbookId: string;
  let ada: ReturnType<typeof callerAs>;

  beforeAll(async () => {
    database = await openTestDatabase(engine, { serve: true });
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await database.reset();
    ada = callerAs(database.db, "admin", "ada");
    ({ playbookId } = await ada.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "support" } }));
  });

  const pin = (bulletId: string) => ada.delta.edit({ playbookId, reason: `Pin [${bulletId}]`, operations: [{ type: "pin", bulletId }] });

  it("pinning a bullet is a new version that ranks it first in the served context, audited and shown in its lineage", async () => {
    // str-00002 (helpful 1, harmful 4) ranks last of its section by its counters.
    expect(await lineOf("support", "str-00002")).toBe(3);
    const outcome = await pin("str-00002");
    expect(outcome).toMatchObject({ status: "applied", appliedVersion: 2 });

    const context = (await served("support")).body.context as string;
    expect(context.split("\n").slice(0, 2)).toEqual([
      "## strategies_and_insights",
      "[str-00002] helpful=1 harmful=4 :: Retry failed API calls immediately without any backoff.",
    ]);
    const bullet = await ada.playbook.bullet({ playbookId, externalId: "str-00002" });
    expect(bullet.pinned).toBe(true);
    const list = await ada.playbook.bullets({ playbookId });
    expect(list.items.filter((row) => row.pinned).map((row) => row.externalId)).toEqual(["str-00002"]);
    const lineage = await ada.history.lineage({ playbookId, bulletId: "str-00002" });
    expect(lineage.entries.map((entry) => entry.kinds)).toContainEqual(["pinned"]);
    const audit = await ada.audit.list({ playbookId });
    expect(audit.entries.map((entry) => entry.action)).toContain("bullet.pin");
    const delta = await ada.delta.get({ deltaId: outcome.deltaId });
    expect(delta.operations[0]).toMatchObject({ type: "pin", preview: { summary: "Pin [str-00002]: ranked first in the context" } });
  });

  it("undoing a pin unpins the bullet and puts it back in its counters' place", async () => {
    const { deltaId } = await pin("str-00002");
    const undone = await ada.delta.undo({ deltaId });
    expect(undone.version).toBe(3);
    expect((await ada.playbook.bullet({ playbookId, externalId: "str-00002" })).pinned).toBe(false);
    expect(await lineOf("support", "str-00002")).toBe(3);
    const lineage = await ada.history.lineage({ playbookId, bulletId: "str-00002" });
    expect(lineage.entries.map((entry) => entry.kinds)).toContainEqual(["unpinned"]);
  });

  it(`refuses a pin past ${MAX_PINNED_BULLETS} per playbook, naming the limit, and changes nothing`, async () => {
    const lines = ["## strategies_and_insights"];
    for (let n = 1; n <= MAX_PINNED_BULLETS + 1; n += 1) {
      lines.push(`[str-${String(n).padStart(5, "0")}] helpful=0 harmful=0 :: Lesson ${n} on topic ${n * 7919} of area ${n * 104729}.`);
    }
    const { playbookId: big } = await ada.playbook.import({
      content: `${lines.join("\n")}\n`,
      format: "ace",
      target: { kind: "new", name: "big" },
    });
    const ids = Array.from({ length: MAX_PINNED_BULLETS + 1 }, (_, index) => `str-${String(index + 1).padStart(5, "0")}`);
    await ada.delta.edit({
      playbookId: big,
      reason: "Pin the rules",
      operations: ids.slice(0, MAX_PINNED_BULLETS).map((bulletId) => ({ type: "pin" as const, bulletId })),
    });
    const refused = ada.delta.edit({ playbookId: big, reason: "One more", operations: [{ type: "pin", bulletId: ids.at(-1)! }] });
    await expect(refused).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(refused).rejects.toThrow(
      `already has ${MAX_PINNED_BULLETS} pinned bullets, the most a playbook may have (${MAX_PINNED_BULLETS})`,
    );
    const detail = await ada.playbook.get({ playbookId: big });
    expect(detail.version).toBe(2);
    expect((await ada.playbook.bullet({ playbookId: big, externalId: ids.at(-1)! })).pinned).toBe(false);
  });

  it("a budget the pinned bullets alone exceed is a 409 naming the budget they need; a larger one serves them first", async () => {
    await ada.delta.edit({
      playbookId,
      reason: "Pin two rules",
      operations: [
        { type: "pin", bulletId: "str-00002" },
        { type: "pin", bulletId: "mis-00004" },
      ],
    });
    const tooSmall = await served("support", "&budget=20");
    expect(tooSmall.status).toBe(409);
    expect(JSON.stringify(tooSmall.body)).toMatch(
      /The 2 pinned bullets take \d+ tokens, more than the budget of 20; ask for at least \d+ tokens/,
    );
    await expect(ada.context.get({ playbookId, budget: 20 })).rejects.toMatchObject({ code: "CONFLICT" });
    const needed = Number(/ask for at least (\d+) tokens/.exec(JSON.stringify(tooSmall.body))![1]);
    const exact = await served("support", `&budget=${needed}`);
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ includedBullets: 2, tokens: needed });
    // The coding-agent export refuses the same way once the budget holds its header but not the pins.
    const header = await ada.playbook.export({ playbookId, format: "claude-md", budget: 1 }).catch((error: Error) => error.message);
    const headerTokens = Number(/give at least (\d+)/.exec(String(header))![1]);
    await expect(ada.playbook.export({ playbookId, format: "claude-md", budget: headerTokens })).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("ACE Studio JSON carries pins to another playbook; ACE text drops them with a note", async () => {
    await pin("str-00003");
    const json = await ada.playbook.export({ playbookId, format: "json" });
    expect(json.notes).toEqual([]);
    const { playbookId: copy } = await ada.playbook.import({
      content: json.content,
      format: "json",
      target: { kind: "new", name: "copy" },
    });
    expect((await ada.playbook.bullet({ playbookId: copy, externalId: "str-00003" })).pinned).toBe(true);
    const text = await ada.playbook.export({ playbookId, format: "ace" });
    expect(text.notes).toEqual([
      "1 pinned bullet written as an ordinary bullet: ACE text cannot mark pins. Export as ACE Studio JSON to keep them.",
    ]);
  });
});
