// Proposals from external ACE loops: an evolved playbook file, compared with the version the loop
// started from, becomes one pending delta. Through the import procedure (mode propose) and
// POST /api/v1/playbooks/{name}/proposals, against embedded PGlite and PostgreSQL.
import { describe, expect, it } from "vitest";
import { testEngines } from "@/server/testing/db";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";

const { POST } = await import("@/app/api/v1/playbooks/[name]/proposals/route");

// SMALL_PLAYBOOK's lines: version 1 of "support agent".
const LINE = {
  one: "[str-00001] helpful=3 harmful=0 :: Always verify data types before processing numeric fields.",
  two: "[str-00002] helpful=1 harmful=4 :: Retry failed API calls immediately without any backoff.",
  three: "[str-00003] helpful=0 harmful=0 :: Paginate through every page of results before answering.",
  four: "[mis-00004] helpful=2 harmful=0 :: Don't forget timezone conversions when comparing dates.",
};

/** What an external loop wrote after starting from version 1: a counter, an edit, an addition, a removal. */
const EVOLVED = SMALL_PLAYBOOK.replace(LINE.one, LINE.one.replace("helpful=3", "helpful=5"))
  .replace(LINE.three, "[str-00003] helpful=0 harmful=0 :: Paginate through every page of results, then answer.")
  .replace(`${LINE.four}\n`, "[mis-00005] helpful=0 harmful=0 :: Never refund twice for one order.\n");

interface ProposalBody {
  playbook: string;
  deltaId: string | null;
  operations: number;
  baseVersion: number;
  conflicts: { target: string; message: string }[];
  stale: boolean;
  message: string;
}
interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

async function post<T = ProposalBody>(name: string, body: unknown): Promise<{ status: number; body: T }> {
  const request = new Request(`http://localhost/api/v1/playbooks/${encodeURIComponent(name)}/proposals`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await POST(request, { params: Promise.resolve({ name }) });
  return { status: response.status, body: (await response.json()) as T };
}

describe.each(testEngines())("proposals from external ACE loops on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support agent", as: ["admin", "tester"] });

  const propose = (content: string, extra: { baseVersion?: number; format?: "auto" | "ace" | "ace-plain" | "kayba" | "json" } = {}) =>
    suite.caller.playbook.import({
      content,
      format: extra.format ?? "auto",
      fileName: "loop-playbook.txt",
      target: {
        kind: "existing",
        playbookId: suite.playbookId,
        mode: "propose",
        ...(extra.baseVersion === undefined ? {} : { baseVersion: extra.baseVersion }),
      },
    });

  const bullet = (externalId: string) => suite.caller.playbook.bullet({ playbookId: suite.playbookId, externalId });

  /** ACE Studio's own change after version 1: a person's edit, applied at once (version 2). */
  async function editInStudio(operations: Parameters<typeof suite.caller.delta.edit>[0]["operations"]) {
    await suite.caller.delta.edit({ playbookId: suite.playbookId, reason: "Edited in ACE Studio", operations });
  }

  it("turns a file evolved from version 1 into exactly its changes, pending, while ACE Studio's edits since are kept", async () => {
    await editInStudio([
      { type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." },
      { type: "tag", bulletId: "str-00002", harmful: 1 },
    ]);

    const result = await propose(EVOLVED, { baseVersion: 1 });
    expect(result).toMatchObject({ playbookId: suite.playbookId, version: 2, bulletCount: 4 });
    expect(result.proposal).toMatchObject({
      operations: 4,
      baseVersion: 1,
      conflicts: [],
      stale: false,
      counts: { added: 1, updated: 1, removed: 1, tagged: 1, restored: 0, sectionsAdded: 0, sectionsRenamed: 0 },
    });
    const deltaId = result.proposal?.deltaId as string;
    expect(result.proposal?.message).toBe(
      "Proposed 4 operations from loop-playbook.txt for review, based on version 1 " +
        "(1 bullet added, 1 bullet updated, 1 bullet removed, 1 counter change).",
    );

    const delta = await suite.caller.delta.get({ deltaId });
    expect(delta).toMatchObject({ status: "pending", origin: "import", baseVersion: 1, author: "tester", flags: { stale: false } });
    expect(delta.rationale).toMatch(/^Proposed from loop-playbook\.txt \(ace\), evolved from version 1: /);
    expect(delta.operations.map((op) => op.payload)).toEqual([
      { type: "tag", bulletId: "str-00001", helpful: 2 },
      { type: "update", bulletId: "str-00003", content: "Paginate through every page of results, then answer." },
      { type: "add", section: "common_mistakes_to_avoid", content: "Never refund twice for one order." },
      { type: "remove", bulletId: "mis-00004", reason: "Not in loop-playbook.txt: the external loop removed it." },
    ]);
    // Nothing changed yet: the proposal waits.
    expect((await suite.caller.playbook.get({ playbookId: suite.playbookId })).version).toBe(2);
    expect((await bullet("str-00001")).helpful).toBe(3);

    const approved = await suite.caller.delta.approve({ deltaId });
    expect(approved).toMatchObject({ status: "applied", appliedVersion: 3, addedIds: ["mis-00005"] });
    expect(await bullet("str-00002")).toMatchObject({ content: "Retry failed API calls with exponential backoff.", harmful: 5 });
    expect(await bullet("str-00001")).toMatchObject({ helpful: 5, harmful: 0 });
    expect(await bullet("str-00003")).toMatchObject({ content: "Paginate through every page of results, then answer." });
    expect(await bullet("mis-00004")).toMatchObject({ status: "archived", helpful: 2 });
    expect(await bullet("mis-00005")).toMatchObject({ content: "Never refund twice for one order.", origin: "import" });
  });

  it("flags a bullet changed on both sides as a conflict: the delta is stale until re-based", async () => {
    await editInStudio([{ type: "update", bulletId: "str-00001", content: "Verify data types and units before processing numbers." }]);
    const file = SMALL_PLAYBOOK.replace(
      LINE.one,
      "[str-00001] helpful=3 harmful=0 :: Check data types before processing numeric fields.",
    ).replace(LINE.three, "[str-00003] helpful=0 harmful=0 :: Paginate until a page comes back empty.");

    const { proposal } = await propose(file, { baseVersion: 1 });
    expect(proposal).toMatchObject({ operations: 2, stale: true });
    expect(proposal?.conflicts).toEqual([
      {
        target: "str-00001",
        label: "[str-00001]",
        message:
          "[str-00001] changed in ACE Studio after version 1 (content) and in loop-playbook.txt (content); review it against the current bullet.",
      },
    ]);
    const deltaId = proposal?.deltaId as string;
    const delta = await suite.caller.delta.get({ deltaId });
    expect(delta.flags.stale).toBe(true);
    expect(delta.staleReasons).toEqual(["[str-00001] changed in version 2, after version 1 this delta was proposed against."]);
    expect(delta.operations[0]?.rationale).toContain("Conflict: ACE Studio changed this bullet too after version 1 (content).");
    expect(delta.operations[0]?.conflicts.map((conflict) => conflict.kind)).toEqual(["changed_since_proposal"]);
    expect(delta.operations[1]?.conflicts).toEqual([]);

    // The other operation can be approved alone; the conflicting one only after a re-base.
    await expectAppError(suite.caller.delta.approve({ deltaId }), "CONFLICT", /stale/);
    await suite.caller.delta.rebase({ deltaId });
    await suite.caller.delta.approve({ deltaId });
    expect((await bullet("str-00001")).content).toBe("Check data types before processing numeric fields.");
    expect((await bullet("str-00003")).content).toBe("Paginate until a page comes back empty.");
  });

  it("proposes nothing when the file has no change since its base version, even after ACE Studio's edits", async () => {
    await editInStudio([{ type: "update", bulletId: "str-00002", content: "Retry with backoff." }]);
    const unchanged = await propose(SMALL_PLAYBOOK, { baseVersion: 1 });
    expect(unchanged.proposal).toMatchObject({
      deltaId: null,
      operations: 0,
      message: "Nothing to propose: loop-playbook.txt has no change since version 1.",
    });
    // Without a base version the file is compared with the current version.
    const current = await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "ace" });
    expect((await propose(current.content)).proposal).toMatchObject({ deltaId: null, baseVersion: 2 });
    expect((await suite.caller.delta.list({ playbookId: suite.playbookId, status: "pending" })).total).toBe(0);
  });

  it("reads back the compiled context an external loop starts from: unchanged proposes nothing, one tag proposes one tag", async () => {
    // The context ranks bullets by score (str-00002 last): order is not a change.
    const { context, version } = await suite.caller.context.get({ playbookId: suite.playbookId, budget: 2_000_000 });
    expect(context.indexOf("[str-00002]")).toBeGreaterThan(context.indexOf("[str-00003]"));
    expect((await propose(context, { baseVersion: version })).proposal).toMatchObject({ deltaId: null, operations: 0 });
    const tagged = context.replace("[str-00003] helpful=0 harmful=0", "[str-00003] helpful=1 harmful=0");
    const { proposal } = await propose(tagged, { baseVersion: version });
    const delta = await suite.caller.delta.get({ deltaId: proposal?.deltaId as string });
    expect(delta.operations.map((op) => op.payload)).toEqual([{ type: "tag", bulletId: "str-00003", helpful: 1 }]);
  });

  it("leaves counters as they are for files without counters: ace-plain and current kayba", async () => {
    const plain = [
      "## strategies_and_insights",
      "[str-00001] Always verify data types before processing numeric fields.",
      "[str-00002] Retry failed API calls with exponential backoff.",
      "[str-00003] Paginate through every page of results before answering.",
      "## common_mistakes_to_avoid",
      "[mis-00004] Don't forget timezone conversions when comparing dates.",
      "",
    ].join("\n");
    const fromPlain = await propose(plain, { baseVersion: 1, format: "ace-plain" });
    const plainDelta = await suite.caller.delta.get({ deltaId: fromPlain.proposal?.deltaId as string });
    expect(plainDelta.operations.map((op) => op.payload)).toEqual([
      { type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." },
    ]);
    await suite.caller.delta.reject({ deltaId: plainDelta.id, reason: "Tested" });

    const skill = (id: string, section: string, content: string) => ({ id, section, content });
    const skillbook = JSON.stringify({
      skills: {
        "str-00001": skill("str-00001", "strategies_and_insights", "Always verify data types before processing numeric fields."),
        "str-00002": skill("str-00002", "strategies_and_insights", "Retry failed API calls immediately without any backoff."),
        "str-00003": skill("str-00003", "strategies_and_insights", "Paginate through every page of results before answering."),
        "mis-00004": skill("mis-00004", "common_mistakes_to_avoid", "Don't forget timezone conversions when comparing dates."),
        "mis-00006": skill("mis-00006", "common_mistakes_to_avoid", "Assuming every date is in UTC."),
      },
      sections: { strategies_and_insights: ["str-00001", "str-00002", "str-00003"], common_mistakes_to_avoid: ["mis-00004", "mis-00006"] },
      next_id: 7,
    });
    const fromKayba = await propose(skillbook, { baseVersion: 1 });
    const kaybaDelta = await suite.caller.delta.get({ deltaId: fromKayba.proposal?.deltaId as string });
    expect(kaybaDelta.operations.map((op) => op.payload)).toEqual([
      { type: "add", section: "common_mistakes_to_avoid", content: "Assuming every date is in UTC." },
    ]);
    await suite.caller.delta.approve({ deltaId: kaybaDelta.id });
    expect(await bullet("str-00002")).toMatchObject({ helpful: 1, harmful: 4 });
  });

  it("shares the rule with merge: a merge of ACE text keeps the neutral counter, which ACE text cannot carry", async () => {
    await editInStudio([{ type: "tag", bulletId: "str-00001", neutral: 4 }]);
    await suite.caller.playbook.import({
      content: SMALL_PLAYBOOK.replace(LINE.one, LINE.one.replace("helpful=3", "helpful=6")),
      format: "ace",
      target: { kind: "existing", playbookId: suite.playbookId, mode: "merge" },
    });
    expect(await bullet("str-00001")).toMatchObject({ helpful: 6, harmful: 0, neutral: 4 });
  });

  it("refuses a base version in the future or one that does not exist, and base versions outside mode propose", async () => {
    await expectAppError(propose(EVOLVED, { baseVersion: 2 }), "CONFLICT", /Version 2 is in the future: "support agent" is at version 1/);
    await expectAppError(propose(EVOLVED, { baseVersion: 0 }), "CONFLICT", /Version 0 does not exist/);
    await expectAppError(
      suite.caller.playbook.import({
        content: EVOLVED,
        target: { kind: "existing", playbookId: suite.playbookId, mode: "merge", baseVersion: 1 },
      }),
      "BAD_REQUEST",
      /baseVersion and rationale go with mode propose only/,
    );
  });

  describe("POST /api/v1/playbooks/{name}/proposals", () => {
    it("answers 201 with the pending delta and its operation count", async () => {
      const { status, body } = await post("support agent", {
        content: EVOLVED,
        format: "auto",
        baseVersion: 1,
        rationale: "Nightly run 42",
      });
      expect(status).toBe(201);
      expect(body).toMatchObject({ playbook: "support agent", operations: 4, baseVersion: 1, stale: false, conflicts: [] });
      const delta = await suite.caller.delta.get({ deltaId: body.deltaId as string });
      expect(delta).toMatchObject({ origin: "import", rationale: "Nightly run 42", status: "pending" });
    });

    it("answers 200 with no delta when nothing changed, the base version defaulting to the current one", async () => {
      const { status, body } = await post("support agent", { content: SMALL_PLAYBOOK });
      expect(status).toBe(200);
      expect(body).toMatchObject({ deltaId: null, operations: 0, baseVersion: 1 });
    });

    it("answers 400 naming the field on bad input", async () => {
      const wrongType = await post<ErrorBody>("support agent", { content: EVOLVED, baseVersion: "7" });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.error.issues?.map((issue) => issue.path)).toEqual(["baseVersion"]);
      const missing = await post<ErrorBody>("support agent", { format: "ace" });
      expect(missing.status).toBe(400);
      expect(missing.body.error.issues?.map((issue) => issue.path)).toEqual(["content"]);
      const unknownKey = await post<ErrorBody>("support agent", { content: EVOLVED, base_version: 1 });
      expect(unknownKey.status).toBe(400);
      expect(unknownKey.body.error.message).toMatch(/base_version/);
      const badFormat = await post<ErrorBody>("support agent", { content: EVOLVED, format: "yaml" });
      expect(badFormat.status).toBe(400);
      expect(badFormat.body.error.issues?.map((issue) => issue.path)).toEqual(["format"]);
      const notJson = await post<ErrorBody>("support agent", "{content:");
      expect(notJson.status).toBe(400);
      const unparsable = await post<ErrorBody>("support agent", { content: "[1, 2]", format: "kayba" });
      expect(unparsable.status).toBe(400);
      expect(unparsable.body.error.code).toBe("INVALID_INPUT");
    });

    it("answers 404 for an unknown playbook", async () => {
      const { status, body } = await post<ErrorBody>("no such playbook", { content: EVOLVED });
      expect(status).toBe(404);
      expect(body.error.message).toMatch(/"no such playbook"/);
    });

    it("answers 409 for a base version in the future or one that does not exist", async () => {
      const future = await post<ErrorBody>("support agent", { content: EVOLVED, baseVersion: 9 });
      expect(future.status).toBe(409);
      expect(future.body.error.message).toMatch(/Version 9 is in the future/);
      const none = await post<ErrorBody>("support agent", { content: EVOLVED, baseVersion: -1 });
      expect(none.status).toBe(409);
      expect(none.body.error.message).toMatch(/Version -1 does not exist/);
      expect((await suite.caller.delta.list({ playbookId: suite.playbookId, status: "pending" })).total).toBe(0);
    });
  });
});
