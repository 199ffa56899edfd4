// A bullet an external loop added keeps the counters the loop gave it: proposed through
// POST /api/v1/playbooks/{name}/proposals (ACE text and a kayba skillbook with counters), approved,
// undone and approved again; and bad starting counters are refused with the field named. Against
// embedded PGlite and PostgreSQL.
import { describe, expect, it } from "vitest";
import { testEngines } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { playbookSuite } from "@/server/testing/playbook-suite";

const { POST } = await import("@/app/api/v1/playbooks/[name]/proposals/route");

const NAME = "support agent";

async function post(body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = new Request(`http://localhost/api/v1/playbooks/${encodeURIComponent(NAME)}/proposals`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const response = await POST(request, { params: Promise.resolve({ name: NAME }) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface KaybaSkill {
  id: string;
  section: string;
  content: string;
  helpful: number;
  harmful: number;
  neutral: number;
  [key: string]: unknown;
}

describe.each(testEngines())("an added bullet's counters from an external loop on %s", (engine) => {
  const suite = playbookSuite(engine, { name: NAME, as: ["admin", "tester"] });

  const bullet = (externalId: string) => suite.caller.playbook.bullet({ playbookId: suite.playbookId, externalId });

  it("ACE text: the pending add carries helpful=3 harmful=1, the approved bullet starts there, undo removes it and approving again re-adds it with them", async () => {
    const file = `${SMALL_PLAYBOOK}[mis-00009] helpful=3 harmful=1 :: Cache the list of supported currencies per session.\n`;
    const posted = await post({ content: file, format: "auto", baseVersion: 1 });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ operations: 1 });
    const deltaId = posted.body.deltaId as string;

    const delta = await suite.caller.delta.get({ deltaId });
    expect(delta.operations.map((op) => op.payload)).toEqual([
      {
        type: "add",
        section: "common_mistakes_to_avoid",
        content: "Cache the list of supported currencies per session.",
        helpful: 3,
        harmful: 1,
      },
    ]);
    expect(delta.operations[0]?.rationale).toContain("It keeps its counters there (helpful=3, harmful=1).");

    const approved = await suite.caller.delta.approve({ deltaId });
    expect(approved.addedIds).toEqual(["mis-00005"]);
    expect(await bullet("mis-00005")).toMatchObject({ status: "active", helpful: 3, harmful: 1, neutral: 0 });

    // Undone, the bullet goes (archived, as an undone addition is); approved again, it comes back with its counters.
    await suite.caller.delta.undo({ deltaId });
    expect(await bullet("mis-00005")).toMatchObject({ status: "archived" });
    // The history still reads version 2 with the bullet as it was added, counters included (rebuilt from the versions after it).
    const atTwo = await suite.caller.history.at({ playbookId: suite.playbookId, version: 2, includeArchived: false });
    const added = atTwo.sections.flatMap((section) => section.bullets).find((b) => b.externalId === "mis-00005");
    expect(added).toMatchObject({ status: "active", helpful: 3, harmful: 1 });
    const again = await suite.caller.delta.approve({ deltaId });
    const [readded] = again.addedIds;
    expect(readded).toBeDefined();
    expect(await bullet(readded as string)).toMatchObject({
      status: "active",
      content: "Cache the list of supported currencies per session.",
      helpful: 3,
      harmful: 1,
    });
  });

  it("kayba with counters: helpful, harmful and neutral of a new skill reach the bullet", async () => {
    const exported = await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "kayba", kaybaFlavour: "skills-counters" });
    const skillbook = JSON.parse(exported.content) as { skills: Record<string, KaybaSkill>; sections: Record<string, string[]> };
    const template = skillbook.skills["str-00001"] as KaybaSkill;
    skillbook.skills["str-00042"] = {
      ...template,
      id: "str-00042",
      content: "Log the request id of every failed call.",
      helpful: 2,
      harmful: 0,
      neutral: 5,
    };
    skillbook.sections["strategies_and_insights"]?.push("str-00042");

    const posted = await post({ content: JSON.stringify(skillbook, null, 2), format: "kayba", baseVersion: 1, fileName: "skillbook.json" });
    expect(posted.status).toBe(201);
    const delta = await suite.caller.delta.get({ deltaId: posted.body.deltaId as string });
    expect(delta.operations.map((op) => op.payload)).toEqual([
      { type: "add", section: "strategies_and_insights", content: "Log the request id of every failed call.", helpful: 2, neutral: 5 },
    ]);
    await suite.caller.delta.approve({ deltaId: delta.id });
    expect(await bullet("str-00005")).toMatchObject({ helpful: 2, harmful: 0, neutral: 5 });
  });

  it("a file without counters (ace-plain) adds the bullet at 0", async () => {
    const plain = SMALL_PLAYBOOK.replace(/ helpful=\d+ harmful=\d+ ::/g, "");
    const posted = await post({
      content: `${plain}[mis-00009] Cache the list of supported currencies per session.\n`,
      format: "ace-plain",
    });
    expect(posted.status).toBe(201);
    const delta = await suite.caller.delta.get({ deltaId: posted.body.deltaId as string });
    expect(delta.operations.map((op) => op.payload)).toEqual([
      { type: "add", section: "common_mistakes_to_avoid", content: "Cache the list of supported currencies per session." },
    ]);
    await suite.caller.delta.approve({ deltaId: delta.id });
    expect(await bullet("mis-00005")).toMatchObject({ helpful: 0, harmful: 0, neutral: 0 });
  });

  it("refuses negative or fractional starting counters with a 400 that names the field, and writes nothing", async () => {
    const add = { type: "add" as const, section: "strategies_and_insights", content: "Cache the currencies." };
    await expectAppError(
      suite.caller.delta.propose({ playbookId: suite.playbookId, operations: [{ operation: { ...add, harmful: -1 } }] }),
      "BAD_REQUEST",
      /harmful \(the count a new bullet starts with\) must be a whole number from 0/,
    );
    await expectAppError(
      suite.caller.delta.edit({ playbookId: suite.playbookId, reason: "Counted elsewhere", operations: [{ ...add, helpful: 1.5 }] }),
      "BAD_REQUEST",
      /helpful \(the count a new bullet starts with\) must be a whole number from 0/,
    );
    // A skillbook whose new skill has a negative counter: the file does not parse, and says where.
    const exported = await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "kayba", kaybaFlavour: "skills-counters" });
    const skillbook = JSON.parse(exported.content) as { skills: Record<string, KaybaSkill>; sections: Record<string, string[]> };
    skillbook.skills["str-00042"] = { ...(skillbook.skills["str-00001"] as KaybaSkill), id: "str-00042", content: "New.", helpful: -2 };
    skillbook.sections["strategies_and_insights"]?.push("str-00042");
    const refused = await post({ content: JSON.stringify(skillbook), format: "kayba" });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('skills[\\"str-00042\\"].helpful');
    expect((await suite.caller.delta.list({ playbookId: suite.playbookId, status: "all" })).total).toBe(0);
    expect((await suite.caller.playbook.get({ playbookId: suite.playbookId })).version).toBe(1);
  });
});
