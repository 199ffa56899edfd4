// The curation queue through createCaller, against embedded PGlite and PostgreSQL.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z, ZodError } from "zod";
import { countSectionTokens, countTokens } from "@/server/ace/tokens";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import { createCaller } from "@/server/trpc/root";
import type { OperationInput } from "./schemas";

type Caller = ReturnType<typeof createCaller>;

describe.each(testEngines())("delta procedures on %s", (engine) => {
  let database: TestDatabase;
  let caller: Caller;
  let alice: Caller;
  let bob: Caller;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    // The server's own code (a curator run) proposes as the system: its deltas' origin is "curator".
    caller = callerAs(database.db, { kind: "system", name: "curator-model" });
    alice = callerAs(database.db, "admin", "alice");
    bob = callerAs(database.db, "admin", "bob");
  });
  afterAll(async () => database?.close());
  beforeEach(async () => database.reset());

  async function playbook(name = "support") {
    const { playbookId } = await caller.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name } });
    return playbookId;
  }

  async function bullet(playbookId: string, externalId: string) {
    return caller.playbook.bullet({ playbookId, externalId });
  }

  async function propose(
    playbookId: string,
    operations: OperationInput[],
    extra: { confidence?: number; rationale?: string; by?: typeof caller } = {},
  ) {
    return (extra.by ?? caller).delta.propose({
      playbookId,
      rationale: extra.rationale ?? "Lessons from the last reflection",
      confidence: extra.confidence ?? 0.5,
      evidence: { traceIds: ["trace-17"], runIds: ["run-3"] },
      operations: operations.map((operation) => ({ operation })),
    });
  }

  async function versionNumbers(playbookId: string) {
    const page = await caller.history.versions({ playbookId, limit: 100 });
    return page.items.map((item) => item.number).reverse();
  }

  it("approving a delta adds its bullet, bumps the version and records who approved what", async () => {
    const playbookId = await playbook();
    const proposed = await propose(playbookId, [
      { type: "add", section: "strategies_and_insights", content: "Cache the list of supported currencies per session." },
      { type: "tag", bulletId: "str-00001", helpful: 1 },
    ]);
    expect(proposed).toMatchObject({ status: "pending", playbookVersion: 1, appliedVersion: null, autoApplied: false });

    const queue = await caller.delta.list({ playbookId });
    expect(queue.items).toHaveLength(1);
    expect(queue.items[0]).toMatchObject({
      id: proposed.deltaId,
      playbookName: "support",
      origin: "curator",
      author: "curator-model",
      counts: { total: 2, pending: 2 },
      types: { add: 1, tag: 1 },
      flags: { stale: false, hasErrors: false },
    });

    const approved = await alice.delta.approve({ deltaId: proposed.deltaId, note: "Good catch" });
    expect(approved).toMatchObject({ status: "applied", playbookVersion: 2, appliedVersion: 2, addedIds: ["str-00005"] });
    expect((await bullet(playbookId, "str-00005")).content).toBe("Cache the list of supported currencies per session.");
    expect((await bullet(playbookId, "str-00005")).origin).toBe("curator");
    expect((await bullet(playbookId, "str-00001")).helpful).toBe(4);

    const view = await caller.delta.get({ deltaId: proposed.deltaId });
    expect(view).toMatchObject({ status: "applied", decidedBy: "alice", reviewNote: "Good catch", appliedVersion: 2 });
    expect(view.operations.map((op) => op.status)).toEqual(["approved", "approved"]);
    expect(view.evidence).toMatchObject({ traceIds: ["trace-17"], runIds: ["run-3"] });
    const versions = await caller.history.versions({ playbookId });
    expect(versions.items[0]).toMatchObject({ number: 2, author: "alice", deltaId: proposed.deltaId, deltaOrigin: "curator" });
    expect(versions.items[0]?.reason).toMatch(/Approved curator delta by curator-model/);
    await expectAppError(bob.delta.approve({ deltaId: proposed.deltaId }), "CONFLICT", /already approved by alice/);
  });

  it("rejecting a delta records the reason and leaves the playbook unchanged", async () => {
    const playbookId = await playbook();
    const { deltaId } = await propose(playbookId, [{ type: "remove", bulletId: "str-00003", reason: "Too slow" }]);
    await expectAppError(alice.delta.reject({ deltaId, reason: "  " }), "BAD_REQUEST", /Say why/);
    const rejected = await alice.delta.reject({ deltaId, reason: "Pagination is required for correctness" });
    expect(rejected).toMatchObject({ status: "rejected", playbookVersion: 1 });
    expect((await bullet(playbookId, "str-00003")).status).toBe("active");
    expect(await versionNumbers(playbookId)).toEqual([1]);
    const view = await caller.delta.get({ deltaId });
    expect(view).toMatchObject({ status: "rejected", reviewNote: "Pagination is required for correctness", decidedBy: "alice" });
    expect((await caller.delta.list({ playbookId })).items).toHaveLength(0);
    expect((await caller.delta.list({ playbookId, status: "rejected" })).items.map((d) => d.id)).toEqual([deltaId]);
  });

  it("edit-then-approve applies the reviewer's wording and keeps the proposed one", async () => {
    const playbookId = await playbook();
    const { deltaId } = await propose(playbookId, [
      { type: "update", bulletId: "str-00002", content: "Retry failed API calls with backoff." },
    ]);
    const view = await caller.delta.get({ deltaId });
    const op = view.operations[0];
    expect(op?.preview.content?.segments).toEqual(
      expect.arrayContaining([
        { kind: "removed", text: expect.stringContaining("immediately") },
        { kind: "added", text: expect.stringContaining("with") },
      ]),
    );
    expect(op?.targets[0]).toMatchObject({ externalId: "str-00002", helpful: 1, harmful: 4, sectionName: "strategies_and_insights" });

    await expectAppError(
      alice.delta.approve({
        deltaId,
        edits: [{ operationId: op?.id ?? "", operation: { type: "remove", bulletId: "str-00002", reason: "x" } }],
      }),
      "BAD_REQUEST",
      /keeps its type/,
    );
    const edited = "Retry failed API calls with exponential backoff and jitter, at most 5 times.";
    const approved = await alice.delta.approve({
      deltaId,
      edits: [{ operationId: op?.id ?? "", operation: { type: "update", bulletId: "str-00002", content: edited } }],
    });
    expect(approved.status).toBe("applied");
    expect((await bullet(playbookId, "str-00002")).content).toBe(edited);
    const after = await caller.delta.get({ deltaId });
    expect(after.operations[0]).toMatchObject({
      status: "approved",
      editedBy: "alice",
      payload: { content: edited },
      originalPayload: { content: "Retry failed API calls with backoff." },
    });
  });

  it("an apply writes each bullet's text as given, whatever characters an array literal treats specially", async () => {
    const playbookId = await playbook();
    // The bullets go to the database as one array per column: quotes, backslashes, braces, commas,
    // the word NULL must come back as they were, and no value may shift to another row.
    const texts = [
      'Quote "as is", then a backslash \\ and {braces}, {"json": [1, 2]}',
      "NULL",
      'a tab\there, {a,b}, "{}", and ()',
      "Unicode: naïve café, 数据, emoji 🚀, and a lone ' quote",
    ];
    const applied = await alice.delta.edit({
      playbookId,
      reason: "special characters",
      operations: [
        ...texts.slice(1).map((content) => ({ type: "add" as const, section: "strategies_and_insights", content })),
        { type: "update", bulletId: "str-00002", content: texts[0]! },
        { type: "remove", bulletId: "str-00001", reason: 'Superseded by "str-00002", {see} \\ NULL' },
      ],
    });
    expect(applied.status).toBe("applied");
    const written = await Promise.all(["str-00002", ...applied.addedIds].map((id) => bullet(playbookId, id)));
    expect(written.map((b) => b.content)).toEqual(texts);
    expect(written.map((b) => b.sectionName)).toEqual(Array(4).fill("strategies_and_insights"));
    const removed = await bullet(playbookId, "str-00001");
    expect(removed).toMatchObject({ status: "archived", archivedReason: 'Superseded by "str-00002", {see} \\ NULL', mergedInto: null });
    expect((await bullet(playbookId, applied.addedIds[0]!)).archivedReason).toBeNull();
  });

  it("updateOperation edits a pending operation and re-validates the delta", async () => {
    const playbookId = await playbook();
    const { deltaId, findings } = await propose(playbookId, [{ type: "update", bulletId: "str-09999", content: "Typo in the id" }]);
    expect(findings[0]).toMatchObject({ severity: "error", kind: "unknown_bullet" });
    expect((await caller.delta.list({ playbookId })).items[0]?.flags.hasErrors).toBe(true);
    const [op] = (await caller.delta.get({ deltaId })).operations;
    const fixed = await alice.delta.updateOperation({
      deltaId,
      operationId: op?.id ?? "",
      operation: { type: "update", bulletId: "str-00003", content: "Paginate through every page before answering." },
    });
    expect(fixed.findings.filter((f) => f.severity === "error")).toEqual([]);
    expect((await caller.delta.list({ playbookId })).items[0]?.flags.hasErrors).toBe(false);
    await alice.delta.approve({ deltaId });
    expect((await bullet(playbookId, "str-00003")).content).toBe("Paginate through every page before answering.");
  });

  it("approving only some operations applies those and rejects the rest", async () => {
    const playbookId = await playbook();
    const { deltaId } = await propose(playbookId, [
      { type: "add", section: "common_mistakes_to_avoid", content: "Never hardcode the current date in a query." },
      { type: "remove", bulletId: "str-00003", reason: "Slow" },
      { type: "tag", bulletId: "mis-00004", helpful: 2 },
    ]);
    const ops = (await caller.delta.get({ deltaId })).operations;
    const approved = await alice.delta.approve({ deltaId, operationIds: [ops[0]?.id ?? "", ops[2]?.id ?? ""] });
    expect(approved.message).toMatch(/2 operations approved, 1 rejected/);
    const view = await caller.delta.get({ deltaId });
    expect(view.operations.map((op) => op.status)).toEqual(["approved", "rejected", "approved"]);
    expect((await bullet(playbookId, "str-00003")).status).toBe("active");
    expect((await bullet(playbookId, "mis-00005")).content).toBe("Never hardcode the current date in a query.");
    expect((await bullet(playbookId, "mis-00004")).helpful).toBe(4);
  });

  it("rejecting some operations keeps the delta pending with the rest", async () => {
    const playbookId = await playbook();
    const { deltaId } = await propose(playbookId, [
      { type: "tag", bulletId: "str-00001", helpful: 1 },
      { type: "tag", bulletId: "str-00003", harmful: 1 },
    ]);
    const ops = (await caller.delta.get({ deltaId })).operations;
    const partial = await alice.delta.reject({ deltaId, reason: "Not cited in that trace", operationIds: [ops[1]?.id ?? ""] });
    expect(partial).toMatchObject({ status: "pending" });
    const approved = await alice.delta.approve({ deltaId });
    expect(approved.status).toBe("applied");
    expect((await bullet(playbookId, "str-00003")).harmful).toBe(0);
    expect((await bullet(playbookId, "str-00001")).helpful).toBe(4);
  });

  it("a delta with an invalid operation names it, and applying it writes nothing", async () => {
    const playbookId = await playbook();
    const { deltaId } = await propose(playbookId, [
      { type: "add", section: "strategies_and_insights", content: "Log every tool call with its arguments." },
      { type: "update", bulletId: "str-09999", content: "No such bullet" },
      { type: "tag", bulletId: "str-00001", helpful: -10 },
    ]);
    await expectAppError(
      alice.delta.approve({ deltaId }),
      "BAD_REQUEST",
      /^Operation 2 \(update \[str-09999\]\): there is no bullet.*\(and 1 more problem\).*Nothing was changed/,
    );
    expect(await versionNumbers(playbookId)).toEqual([1]);
    expect((await caller.playbook.bullets({ playbookId })).total).toBe(4);
    expect((await caller.delta.get({ deltaId })).status).toBe("pending");

    // The same through a direct edit: nothing is written, not even the delta.
    await expectAppError(
      alice.delta.edit({
        playbookId,
        reason: "cleanup",
        operations: [
          { type: "tag", bulletId: "str-00001", helpful: 1 },
          { type: "add", section: "strategies_and_insights", content: "x".repeat(1_001) },
        ],
      }),
      "BAD_REQUEST",
      /^Operation 2 \(add to "strategies_and_insights"\): the content has 1,001 characters, over the limit of 1,000/,
    );
    expect(await versionNumbers(playbookId)).toEqual([1]);
    expect((await bullet(playbookId, "str-00001")).helpful).toBe(3);
    expect((await caller.delta.list({ playbookId, status: "all" })).total).toBe(1);
  });

  it("content far over the limit is refused with the playbook's own limit, and a long section name with a sentence", async () => {
    const playbookId = await playbook();
    const tooLong = alice.delta.edit({
      playbookId,
      reason: "paste",
      operations: [{ type: "update", bulletId: "str-00001", content: "x".repeat(50_000) }],
    });
    await expectAppError(
      tooLong,
      "BAD_REQUEST",
      /the content has 50,000 characters, over the limit of 1,000; shorten it or split it into several bullets\. Nothing was changed\.$/,
    );

    // The browser's form reads zod's field messages: a sentence, not the validator's own text.
    const error = await alice.delta
      .edit({ playbookId, reason: "naming", operations: [{ type: "add_section", name: "N".repeat(300) }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    const cause = (error as TRPCError).cause;
    expect(cause).toBeInstanceOf(ZodError);
    expect(z.flattenError(cause as ZodError).fieldErrors).toEqual({ operations: ["A section name has at most 200 characters."] });
    expect(await versionNumbers(playbookId)).toEqual([1]);
  });

  it("a near-duplicate add is flagged with the matched bullet and a suggested merge", async () => {
    const playbookId = await playbook();
    const outcome = await propose(playbookId, [
      { type: "add", section: "common_mistakes_to_avoid", content: "Don't forget the timezone conversions when comparing dates." },
    ]);
    const duplicate = outcome.findings.find((f) => f.kind === "near_duplicate");
    expect(duplicate).toMatchObject({
      severity: "warning",
      matchedBulletId: "mis-00004",
      suggestion: { type: "merge", into: "mis-00004", bulletIds: ["mis-00004"] },
    });
    expect(duplicate?.similarity).toBeGreaterThanOrEqual(0.85);
    expect((await caller.delta.list({ playbookId })).items[0]?.flags).toMatchObject({ hasDuplicates: true, hasErrors: false });
    const view = await caller.delta.get({ deltaId: outcome.deltaId });
    expect(view.operations[0]?.findings[0]?.kind).toBe("near_duplicate");

    // The reviewer takes the suggestion: edit the operation into the merge, then approve.
    const suggestion = duplicate?.suggestion;
    expect(suggestion).toBeDefined();
    const approveWithMerge = await alice.delta.approve({
      deltaId: outcome.deltaId,
      edits: [
        {
          operationId: view.operations[0]?.id ?? "",
          operation: { type: "add", section: "common_mistakes_to_avoid", content: "Convert timezones before comparing dates." },
        },
      ],
    });
    expect(approveWithMerge.status).toBe("applied");
  });

  it("the token budget counts the compiled playbook as the summary and the context do, counters included", async () => {
    const playbookId = await playbook();
    const headers = countSectionTokens("strategies_and_insights") + countSectionTokens("common_mistakes_to_avoid");
    const lines = async () => (await caller.playbook.get({ playbookId })).summary.estimatedTokens - headers;
    const content = "Cache the list of supported currencies per session.";
    const line = (id: string) => countTokens(`[${id}] helpful=0 harmful=0 :: ${content}\n`);
    const budgetFinding = async (budget: number) => {
      await alice.playbook.updateSettings({ playbookId, settings: { tokenBudget: budget } });
      const { findings, deltaId } = await propose(playbookId, [{ type: "add", section: "strategies_and_insights", content }]);
      await alice.delta.reject({ deltaId, reason: "Only measuring" });
      return findings.find((finding) => finding.kind === "token_budget");
    };

    // The first proposal loads the playbook: its total comes from the counts stored with the bullets.
    let total = (await lines()) + line("str-00005");
    expect(await budgetFinding(total)).toBeUndefined();
    expect((await budgetFinding(total - 1))?.message).toContain(
      `${total} tokens of the compiled playbook, over its budget of ${total - 1}`,
    );

    // A counter of four digits takes a token more: the engine's running total follows the tag.
    await alice.delta.edit({ playbookId, reason: "Counters", operations: [{ type: "tag", bulletId: "str-00001", helpful: 1_000 }] });
    expect(await lines()).toBe(total - line("str-00005") + 1);
    total += 1;
    expect(await budgetFinding(total)).toBeUndefined();
    expect((await budgetFinding(total - 1))?.message).toContain(`${total} tokens of the compiled playbook`);
  });

  it("auto-applies a person's confident deltas when the playbook allows it, never a curator's, pruning or flagged ones", async () => {
    const playbookId = await playbook();
    const off = await propose(playbookId, [{ type: "tag", bulletId: "str-00001", helpful: 1 }], { confidence: 0.95, by: alice });
    expect(off.status).toBe("pending");

    const settings = await alice.playbook.updateSettings({ playbookId, settings: { autoApply: true } });
    expect(settings).toMatchObject({ version: 2, changed: ["autoApply off → on"] });
    expect(settings.settings.autoApplyConfidence).toBe(0.7);
    const versions = await caller.history.versions({ playbookId });
    expect(versions.items[0]).toMatchObject({ number: 2, author: "alice", reason: "Settings changed: autoApply off → on" });

    const confident = await propose(playbookId, [{ type: "tag", bulletId: "str-00003", helpful: 1 }], { confidence: 0.7, by: alice });
    expect(confident).toMatchObject({ status: "auto_applied", autoApplied: true, appliedVersion: 3 });
    expect((await bullet(playbookId, "str-00003")).helpful).toBe(1);
    const unsure = await propose(playbookId, [{ type: "tag", bulletId: "str-00003", helpful: 1 }], { confidence: 0.69, by: alice });
    expect(unsure.status).toBe("pending");
    // The server's own curator writes what traces taught: a person reviews it, however confident.
    const curated = await propose(playbookId, [{ type: "add", section: "strategies_and_insights", content: "Quote refunds in cents." }], {
      confidence: 0.99,
    });
    expect(curated).toMatchObject({ status: "pending", autoApplied: false });
    const duplicate = await propose(
      playbookId,
      [{ type: "add", section: "common_mistakes_to_avoid", content: "Don't forget timezone conversions when comparing dates!" }],
      { confidence: 0.99, by: alice },
    );
    expect(duplicate.status).toBe("pending");
    const auto = await caller.delta.list({ playbookId, status: "auto_applied" });
    expect(auto.items.map((d) => d.id)).toEqual([confident.deltaId]);
    expect(auto.items[0]?.decidedBy).toBe("auto-apply");
  });

  it("a delta whose target changed after it was proposed is stale until re-based", async () => {
    const playbookId = await playbook();
    const { deltaId } = await propose(playbookId, [
      { type: "update", bulletId: "str-00003", content: "Paginate through all result pages." },
    ]);
    const untouched = await propose(playbookId, [{ type: "tag", bulletId: "mis-00004", helpful: 1 }]);
    await bob.delta.edit({
      playbookId,
      reason: "Clarify",
      operations: [{ type: "update", bulletId: "str-00003", content: "Paginate until the API returns an empty page." }],
    });

    const queue = await caller.delta.list({ playbookId });
    expect(queue.items.find((d) => d.id === deltaId)?.flags.stale).toBe(true);
    expect(queue.items.find((d) => d.id === untouched.deltaId)?.flags.stale).toBe(false);
    expect((await caller.delta.list({ playbookId, status: "stale" })).items.map((d) => d.id)).toEqual([deltaId]);
    const view = await caller.delta.get({ deltaId });
    expect(view.flags.stale).toBe(true);
    expect(view.staleReasons[0]).toMatch(/\[str-00003\] changed in version 2, after version 1/);
    expect(view.operations[0]?.conflicts[0]).toMatchObject({ kind: "changed_since_proposal", target: "str-00003", version: 2 });
    expect(view.operations[0]?.preview.content?.before).toBe("Paginate until the API returns an empty page.");

    await expectAppError(alice.delta.approve({ deltaId }), "CONFLICT", /stale.*Re-base it.*or reject it/);
    expect((await bullet(playbookId, "str-00003")).content).toBe("Paginate until the API returns an empty page.");
    await alice.delta.approve({ deltaId: untouched.deltaId });

    const rebased = await alice.delta.rebase({ deltaId });
    expect(rebased).toMatchObject({ stale: false, playbookVersion: 3 });
    expect((await caller.delta.get({ deltaId })).baseVersion).toBe(3);
    await alice.delta.approve({ deltaId });
    expect((await bullet(playbookId, "str-00003")).content).toBe("Paginate through all result pages.");
  });

  it("a re-base that no longer applies keeps the delta stale and says why", async () => {
    const playbookId = await playbook();
    const { deltaId } = await propose(playbookId, [
      { type: "update", bulletId: "str-00003", content: "Paginate through all result pages." },
    ]);
    await bob.delta.edit({ playbookId, reason: "Obsolete", operations: [{ type: "remove", bulletId: "str-00003", reason: "Obsolete" }] });
    const rebased = await alice.delta.rebase({ deltaId });
    expect(rebased.stale).toBe(true);
    expect(rebased.message).toMatch(/no longer applies.*archived.*Edit the operations or reject/);
  });

  it("an edit made on an older version is refused when its bullet changed since", async () => {
    const playbookId = await playbook();
    await alice.delta.edit({
      playbookId,
      reason: "Tighten",
      operations: [{ type: "update", bulletId: "str-00001", content: "Verify data types first." }],
    });
    await expectAppError(
      bob.delta.edit({
        playbookId,
        reason: "Mine",
        expectedVersion: 1,
        operations: [{ type: "update", bulletId: "str-00001", content: "Bob's words" }],
      }),
      "CONFLICT",
      /\[str-00001\] was changed in version 2, after version 1 you were editing.*not applied/,
    );
    // An edit of another bullet on the same old version is fine: nothing it touches changed.
    const other = await bob.delta.edit({
      playbookId,
      reason: "Mine",
      expectedVersion: 1,
      operations: [{ type: "tag", bulletId: "str-00002", harmful: 1 }],
    });
    expect(other.appliedVersion).toBe(3);
    expect((await bullet(playbookId, "str-00001")).content).toBe("Verify data types first.");
  });

  it("an import into the playbook makes proposals on the bullets it changed stale, and later edits see its bullets", async () => {
    const playbookId = await playbook();
    const proposal = await propose(playbookId, [{ type: "update", bulletId: "str-00001", content: "Verify types." }]);
    await alice.delta.edit({ playbookId, reason: "warm the cache", operations: [{ type: "tag", bulletId: "mis-00004", neutral: 1 }] });
    const file = [
      "## strategies_and_insights",
      "[str-00001] helpful=3 harmful=0 :: Verify data types, units and currencies before processing numeric fields.",
      "[str-00009] helpful=0 harmful=0 :: Imported lesson about idempotent writes.",
      "",
    ].join("\n");
    const imported = await caller.playbook.import({
      content: file,
      format: "ace",
      target: { kind: "existing", playbookId, mode: "merge" },
    });
    expect(imported.version).toBe(3);
    expect((await caller.delta.get({ deltaId: proposal.deltaId })).staleReasons).toEqual([
      "[str-00001] changed in version 3, after version 1 this delta was proposed against.",
    ]);
    const tagged = await alice.delta.edit({ playbookId, reason: "Used", operations: [{ type: "tag", bulletId: "str-00009", helpful: 1 }] });
    expect(tagged.appliedVersion).toBe(4);
    const added = await alice.delta.edit({
      playbookId,
      reason: "Next id",
      operations: [{ type: "add", section: "strategies_and_insights", content: "Ids continue after the import." }],
    });
    expect(added.addedIds).toEqual(["str-00010"]);
    const at3 = await caller.history.at({ playbookId, version: 3 });
    expect(at3.sections[0]?.bullets.map((b) => b.externalId)).toEqual(["str-00001", "str-00002", "str-00003", "str-00009"]);
  });

  it("two people approving conflicting deltas at once: exactly one wins and nothing is lost", async () => {
    const playbookId = await playbook();
    const first = await propose(playbookId, [{ type: "update", bulletId: "str-00001", content: "Check numeric types before arithmetic." }]);
    const second = await propose(playbookId, [
      { type: "update", bulletId: "str-00001", content: "Validate field types when parsing." },
      { type: "add", section: "strategies_and_insights", content: "Prefer idempotent writes so a retry is safe." },
    ]);
    const results = await Promise.allSettled([
      alice.delta.approve({ deltaId: first.deltaId }),
      bob.delta.approve({ deltaId: second.deltaId }),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const error = lost[0]?.reason as TRPCError;
    expect(error).toBeInstanceOf(TRPCError);
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toMatch(/changed by someone else a moment ago; your approval was not applied|stale/);

    const winner = results[0]?.status === "fulfilled" ? first : second;
    const loser = winner === first ? second : first;
    expect((await caller.delta.get({ deltaId: loser.deltaId })).status).toBe("pending");
    expect((await caller.delta.get({ deltaId: winner.deltaId })).status).toBe("applied");
    expect(await versionNumbers(playbookId)).toEqual([1, 2]);
    const content = (await bullet(playbookId, "str-00001")).content;
    expect(content).toBe(winner === first ? "Check numeric types before arithmetic." : "Validate field types when parsing.");
    // The loser's add was not half-written either.
    expect((await caller.playbook.bullets({ playbookId })).total).toBe(winner === first ? 4 : 5);
  });

  it("concurrent approvals of deltas that touch different bullets both apply, in consecutive versions", async () => {
    const playbookId = await playbook();
    const deltas = await Promise.all(
      ["str-00001", "str-00002", "str-00003", "mis-00004"].map((bulletId) => propose(playbookId, [{ type: "tag", bulletId, neutral: 1 }])),
    );
    const results = await Promise.all(deltas.map((d, i) => (i % 2 ? alice : bob).delta.approve({ deltaId: d.deltaId })));
    expect(results.map((r) => r.appliedVersion).sort()).toEqual([2, 3, 4, 5]);
    expect(await versionNumbers(playbookId)).toEqual([1, 2, 3, 4, 5]);
    for (const id of ["str-00001", "str-00002", "str-00003", "mis-00004"]) expect((await bullet(playbookId, id)).neutral).toBe(1);
  });

  it("a failure in the middle of an apply leaves the previous version and every bullet intact", async () => {
    const playbookId = await playbook();
    const before = await caller.playbook.export({ playbookId, format: "json" });
    const { deltaId } = await propose(playbookId, [
      { type: "add_section", name: "verification_checklist" },
      { type: "add", section: "verification_checklist", content: "Re-read the task before submitting." },
      { type: "update", bulletId: "str-00001", content: "Verify types." },
      { type: "update", bulletId: "str-00003", content: "This write fails." },
      { type: "tag", bulletId: "mis-00004", helpful: 1 },
    ]);
    // A test-only trigger in the test database: the database refuses to update one bullet.
    await database.db.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION ace_test_fail_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."externalId" = 'str-00003' THEN RAISE EXCEPTION 'injected failure'; END IF;
        RETURN NEW;
      END $$`);
    await database.db.$executeRawUnsafe(
      `CREATE TRIGGER ace_test_fail_update BEFORE UPDATE ON "Bullet" FOR EACH ROW EXECUTE FUNCTION ace_test_fail_update()`,
    );
    try {
      await expectAppError(alice.delta.approve({ deltaId }), "INTERNAL_SERVER_ERROR", /./);
    } finally {
      await database.db.$executeRawUnsafe(`DROP TRIGGER IF EXISTS ace_test_fail_update ON "Bullet"`);
      await database.db.$executeRawUnsafe(`DROP FUNCTION IF EXISTS ace_test_fail_update()`);
    }
    expect(await versionNumbers(playbookId)).toEqual([1]);
    expect((await caller.playbook.get({ playbookId })).version).toBe(1);
    const after = await caller.playbook.export({ playbookId, format: "json" });
    expect(after.content).toBe(before.content);
    expect((await caller.delta.get({ deltaId })).status).toBe("pending");

    // The same delta applies once the database accepts it: the cached state was not advanced by the failure.
    const approved = await alice.delta.approve({ deltaId });
    expect(approved).toMatchObject({ appliedVersion: 2, addedIds: ["ver-00005"] });
    expect((await bullet(playbookId, "str-00003")).content).toBe("This write fails.");
  });

  it("every browser edit is a delta by that person, applied at once and shown in the history", async () => {
    const playbookId = await playbook();
    const edit = (operations: OperationInput[], reason: string, expectedVersion?: number) =>
      alice.delta.edit({ playbookId, reason, operations, ...(expectedVersion === undefined ? {} : { expectedVersion }) });

    const added = await edit(
      [{ type: "add", section: "strategies_and_insights", content: "Summarise long tool outputs before reasoning." }],
      "Add a lesson",
      1,
    );
    expect(added).toMatchObject({ status: "applied", appliedVersion: 2, addedIds: ["str-00005"] });
    await edit(
      [{ type: "update", bulletId: "str-00005", content: "Summarise long tool outputs before reasoning over them." }],
      "Edit in place",
      2,
    );
    await edit([{ type: "update", bulletId: "str-00005", section: "common_mistakes_to_avoid" }], "Move to mistakes");
    await edit([{ type: "update", bulletId: "str-00005", position: 0 }], "First in its section");
    await edit([{ type: "remove", bulletId: "str-00002", reason: "Harmful advice" }], "Archive");
    await edit([{ type: "restore", bulletId: "str-00002" }], "Restore");
    await edit([{ type: "tag", bulletId: "str-00002", helpful: 2, harmful: -1 }], "Counters were miscounted in run 12");
    await edit([{ type: "add_section", name: "verification_checklist", slug: "ver" }], "New section");
    await edit([{ type: "rename_section", section: "verification_checklist", name: "Verification checklist" }], "Rename");
    const last = await edit([{ type: "move_section", section: "Verification checklist", position: 0 }], "Reorder sections");
    expect(last.appliedVersion).toBe(11);

    const detail = await caller.playbook.get({ playbookId });
    expect(detail.version).toBe(11);
    expect(detail.sections.map((s) => s.name)).toEqual(["Verification checklist", "strategies_and_insights", "common_mistakes_to_avoid"]);
    const mistakes = await caller.playbook.bullets({ playbookId, sectionIds: [detail.sections[2]?.id ?? ""] });
    expect(mistakes.items.map((b) => b.externalId)).toEqual(["str-00005", "mis-00004"]);
    expect(await bullet(playbookId, "str-00002")).toMatchObject({ status: "active", helpful: 3, harmful: 3 });

    const versions = await caller.history.versions({ playbookId, limit: 20 });
    expect(versions.items.map((v) => v.reason)).toEqual([
      "Reorder sections",
      "Rename",
      "New section",
      "Counters were miscounted in run 12",
      "Restore",
      "Archive",
      "First in its section",
      "Move to mistakes",
      "Edit in place",
      "Add a lesson",
      expect.stringMatching(/^Imported/),
    ]);
    expect(versions.items.every((v) => v.number === 1 || (v.author === "alice" && v.deltaOrigin === "person"))).toBe(true);
    const applied = await caller.delta.list({ playbookId, status: "applied", limit: 100 });
    expect(applied.total).toBe(10);
    expect(applied.items.every((d) => d.origin === "person" && d.author === "alice" && d.decidedBy === "alice")).toBe(true);
  });

  it("one edit can swap two section names and reuse a name it frees", async () => {
    const playbookId = await playbook();
    await alice.delta.edit({
      playbookId,
      reason: "Swap and reuse",
      operations: [
        { type: "rename_section", section: "strategies_and_insights", name: "tmp" },
        { type: "rename_section", section: "common_mistakes_to_avoid", name: "strategies_and_insights" },
        { type: "rename_section", section: "tmp", name: "Mistakes" },
        { type: "add_section", name: "common_mistakes_to_avoid", slug: "cma" },
      ],
    });
    const detail = await caller.playbook.get({ playbookId });
    expect(detail.sections.map((s) => [s.name, s.bulletCount])).toEqual([
      ["Mistakes", 3],
      ["strategies_and_insights", 1],
      ["common_mistakes_to_avoid", 0],
    ]);
  });

  it("pruning is proposed as a pending delta of removals with reasons, and only when the policy is on", async () => {
    const playbookId = await playbook();
    const off = await alice.delta.proposePruning({ playbookId });
    expect(off).toMatchObject({ delta: null, reason: expect.stringMatching(/Pruning is off/) });

    await alice.playbook.updateSettings({ playbookId, settings: { pruning: { enabled: true }, autoApply: true } });
    const pruned = await alice.delta.proposePruning({ playbookId });
    expect(pruned.delta).toMatchObject({ status: "pending", autoApplied: false });
    const view = await caller.delta.get({ deltaId: pruned.delta?.deltaId ?? "" });
    expect(view.origin).toBe("pruning");
    expect(view.operations.map((op) => op.payload)).toEqual([
      { type: "remove", bulletId: "str-00002", reason: expect.stringMatching(/harmful in 4 of 5 votes/i) },
    ]);
    expect(view.operations[0]?.preview.archives).toEqual(["str-00002"]);
    expect((await bullet(playbookId, "str-00002")).status).toBe("active");

    const again = await alice.delta.proposePruning({ playbookId });
    expect(again).toMatchObject({ delta: null, candidates: 1, reason: expect.stringMatching(/already in a pending pruning delta/) });
  });

  it("bulk approve and reject report each delta; one failure does not undo the others", async () => {
    const playbookId = await playbook();
    const ok1 = await propose(playbookId, [{ type: "tag", bulletId: "str-00001", helpful: 1 }]);
    const broken = await propose(playbookId, [{ type: "tag", bulletId: "str-04040", helpful: 1 }]);
    const ok2 = await propose(playbookId, [{ type: "tag", bulletId: "str-00003", harmful: 1 }]);
    const result = await alice.delta.bulk({ action: "approve", deltaIds: [ok1.deltaId, broken.deltaId, ok2.deltaId] });
    expect(result).toMatchObject({ succeeded: 2, failed: 1 });
    expect(result.results.map((r) => [r.ok, r.status, r.appliedVersion])).toEqual([
      [true, "applied", 2],
      [false, null, null],
      [true, "applied", 3],
    ]);
    expect(result.results[1]?.error).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/Operation 1 \(tag \[str-04040\]\)/),
    });

    await expectAppError(alice.delta.bulk({ action: "reject", deltaIds: [broken.deltaId] }), "BAD_REQUEST", /Say why/);
    const rejected = await alice.delta.bulk({ action: "reject", deltaIds: [broken.deltaId, ok1.deltaId], reason: "Unknown bullet" });
    expect(rejected.results.map((r) => r.ok)).toEqual([true, false]);
    expect(rejected.results[1]?.error?.message).toMatch(/already approved by alice/);
    expect((await caller.delta.get({ deltaId: broken.deltaId })).status).toBe("rejected");
  });

  it("the queue lists deltas across playbooks, newest first, in pages", async () => {
    const one = await playbook("one");
    const two = await playbook("two");
    const ids: string[] = [];
    for (const [index, playbookId] of [one, two, one, two, one].entries()) {
      ids.push((await propose(playbookId, [{ type: "tag", bulletId: "str-00001", helpful: index + 1 }])).deltaId);
    }
    const first = await caller.delta.list({ limit: 2 });
    expect(first.total).toBe(5);
    expect(first.items.map((d) => d.id)).toEqual([ids[4], ids[3]]);
    expect(first.items.map((d) => d.playbookName)).toEqual(["one", "two"]);
    expect(first.nextCursor).toBe(2);
    const rest = await caller.delta.list({ cursor: 2, limit: 10 });
    expect(rest.items.map((d) => d.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(rest.nextCursor).toBeNull();
    expect((await caller.delta.list({ playbookId: two })).total).toBe(2);
    expect((await caller.delta.list({ origin: "person" })).total).toBe(0);
    await expectAppError(caller.delta.get({ deltaId: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND", /delta was not found/);
  });

  it("the view shows every operation against the current bullet, with pending conflicts elsewhere", async () => {
    const playbookId = await playbook();
    const other = await propose(playbookId, [{ type: "remove", bulletId: "str-00001", reason: "Redundant" }]);
    const { deltaId } = await propose(playbookId, [
      { type: "merge", bulletIds: ["str-00001", "str-00003"], into: "str-00001", content: "Verify types and paginate fully." },
      { type: "tag", bulletId: "mis-00004", harmful: 2 },
      { type: "rename_section", section: "common_mistakes_to_avoid", name: "Mistakes" },
    ]);
    const view = await caller.delta.get({ deltaId });
    const [merge, tag, rename] = view.operations;
    expect(merge?.preview).toMatchObject({
      archives: ["str-00003"],
      counters: { before: { helpful: 3, harmful: 0, neutral: 0 }, after: { helpful: 3, harmful: 0, neutral: 0 } },
    });
    expect(merge?.targets.map((t) => t.externalId).sort()).toEqual(["str-00001", "str-00003"]);
    expect(merge?.conflicts).toEqual([expect.objectContaining({ kind: "pending_elsewhere", target: "str-00001", deltaId: other.deltaId })]);
    expect(tag?.preview.counters).toEqual({
      before: { helpful: 2, harmful: 0, neutral: 0 },
      after: { helpful: 2, harmful: 2, neutral: 0 },
    });
    expect(rename?.preview.section).toEqual({ from: "common_mistakes_to_avoid", to: "Mistakes" });
  });

  describe("undo", () => {
    it("undoing an approval reverts its version as a new one, and the delta waits for review again, not stale", async () => {
      const playbookId = await playbook();
      const { deltaId } = await propose(playbookId, [
        { type: "add", section: "strategies_and_insights", content: "Cache the list of supported currencies per session." },
        { type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." },
      ]);
      const approved = await alice.delta.approve({ deltaId });
      expect(approved.addedIds).toEqual(["str-00005"]);

      const undone = await bob.delta.undo({ deltaId });
      expect(undone).toMatchObject({ status: "pending", version: 3, undoneVersion: 2 });
      expect(undone.message).toBe("Approval undone as version 3: the delta waits for review again.");
      expect(await versionNumbers(playbookId)).toEqual([1, 2, 3]);
      expect((await bullet(playbookId, "str-00002")).content).toBe("Retry failed API calls immediately without any backoff.");
      // The added bullet is archived, not deleted: its provenance stays.
      expect(await bullet(playbookId, "str-00005")).toMatchObject({ status: "archived" });
      const [entry] = (await caller.history.versions({ playbookId, limit: 1 })).items;
      expect(entry).toMatchObject({ number: 3, author: "bob", deltaOrigin: "rollback" });
      expect(entry?.reason).toBe("Undid the approval of the curator delta by curator-model (version 2)");

      const view = await caller.delta.get({ deltaId });
      expect(view).toMatchObject({ status: "pending", appliedVersion: null, decidedBy: null, baseVersion: 3, flags: { stale: false } });
      expect(view.operations.map((op) => op.status)).toEqual(["pending", "pending"]);
      expect(view.reviewNote).toBe("Approval by alice undone by bob (version 3).");
      // Approved again, it applies again.
      expect((await alice.delta.approve({ deltaId })).appliedVersion).toBe(4);
    });

    it("an approval cannot be undone once a later version touched what it changed, and the refusal says which", async () => {
      const playbookId = await playbook();
      const { deltaId } = await propose(playbookId, [{ type: "update", bulletId: "str-00002", content: "Back off before retrying." }]);
      await alice.delta.approve({ deltaId });
      await bob.delta.edit({
        playbookId,
        reason: "sharper",
        operations: [{ type: "update", bulletId: "str-00002", content: "Back off exponentially." }],
      });
      await expectAppError(
        alice.delta.undo({ deltaId }),
        "CONFLICT",
        /^This approval cannot be undone: version 3 by bob changed \[str-00002\] after it, and an undo would overwrite that\. Roll back/,
      );
      expect(await versionNumbers(playbookId)).toEqual([1, 2, 3]);
      expect((await caller.delta.get({ deltaId })).status).toBe("applied");
      // A later change to another bullet does not stand in the way.
      const other = await propose(playbookId, [{ type: "tag", bulletId: "mis-00004", helpful: 1 }]);
      await alice.delta.approve({ deltaId: other.deltaId });
      await bob.delta.edit({ playbookId, reason: "more", operations: [{ type: "tag", bulletId: "str-00001", helpful: 1 }] });
      expect((await alice.delta.undo({ deltaId: other.deltaId })).status).toBe("pending");
    });

    it("undoing a rejection reopens the delta; an operation rejected on its own before stays rejected", async () => {
      const playbookId = await playbook();
      const { deltaId } = await propose(playbookId, [
        { type: "tag", bulletId: "str-00001", helpful: 1 },
        { type: "tag", bulletId: "str-00003", helpful: 1 },
        { type: "tag", bulletId: "mis-00004", helpful: 1 },
      ]);
      const first = (await caller.delta.get({ deltaId })).operations[0]!;
      await alice.delta.reject({ deltaId, reason: "Not this one", operationIds: [first.id] });
      await alice.delta.reject({ deltaId, reason: "Not now" });
      const undone = await bob.delta.undo({ deltaId });
      expect(undone).toMatchObject({ status: "pending", version: null, message: "Rejection undone: the delta waits for review again." });
      const view = await caller.delta.get({ deltaId });
      expect(view.operations.map((op) => op.status)).toEqual(["rejected", "pending", "pending"]);
      expect(view.reviewNote).toBe("Rejection by alice undone by bob (it said: Not now).");
      // The undo is in the audit log, as the rejection's history (no version records it).
      const log = await caller.audit.list({ action: "delta.undo" });
      expect(log.entries).toMatchObject([
        { action: "delta.undo", targetId: deltaId, playbookId, after: { status: "pending", version: null }, actorName: "bob@example.test" },
      ]);
      expect(await versionNumbers(playbookId)).toEqual([1]);
      await expectAppError(bob.delta.undo({ deltaId }), "CONFLICT", /waits for review: there is no decision to undo/);
    });

    it("undoing a rollback brings back the playbook as it was before it", async () => {
      const playbookId = await playbook();
      await alice.delta.edit({
        playbookId,
        reason: "clarify",
        operations: [{ type: "update", bulletId: "str-00001", content: "Verify types first." }],
      });
      const rolledBack = await alice.history.rollback({ playbookId, version: 1, reason: "Wrong edit" });
      expect((await bullet(playbookId, "str-00001")).content).toBe("Always verify data types before processing numeric fields.");
      const undone = await alice.delta.undo({ deltaId: rolledBack.deltaId });
      expect(undone).toMatchObject({ status: "applied", version: 4, undoneVersion: 3 });
      expect((await bullet(playbookId, "str-00001")).content).toBe("Verify types first.");
    });
  });

  it("the queue's signature changes when a delta is proposed or decided and when a playbook changes, and only then", async () => {
    const playbookId = await playbook();
    const other = await playbook("other");
    const watch = async (id?: string) => (await caller.delta.watch(id ? { playbookId: id } : {})).signature;
    const before = await watch();
    expect(await watch()).toBe(before);
    const { deltaId } = await propose(playbookId, [{ type: "tag", bulletId: "str-00001", helpful: 1 }]);
    const proposed = await watch(playbookId);
    expect(await watch()).not.toBe(before);
    const otherQueue = await watch(other);
    await alice.delta.approve({ deltaId });
    expect(await watch(playbookId)).not.toBe(proposed);
    expect(await watch(other)).toBe(otherQueue);
    const quiet = await watch(playbookId);
    await alice.delta.edit({ playbookId, reason: "x", operations: [{ type: "tag", bulletId: "str-00003", helpful: 1 }] });
    expect(await watch(playbookId)).not.toBe(quiet);
    await expectAppError(caller.delta.watch({ playbookId: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND", /playbook was not found/);
  });

  it("a delta's view names its stored evidence traces with task and outcome, in the evidence's order", async () => {
    const playbookId = await playbook();
    const ingested = await caller.traces.ingest({
      traces: [
        { playbook: "support", task: "Refund order 1042 through the payments API", outcome: "failure", citedBulletIds: ["str-00002"] },
        { playbook: "support", task: "Tell the customer where order 7 is", outcome: "success" },
      ],
    });
    const [refund, status] = ingested.traces.map((trace) => trace.id);
    const outcome = await caller.delta.propose({
      playbookId,
      evidence: { traceIds: [status!, "agent-run-17", refund!], runIds: ["not-a-run"] },
      operations: [{ operation: { type: "tag", bulletId: "str-00002", harmful: 1 } }],
    });
    const view = await caller.delta.get({ deltaId: outcome.deltaId });
    expect(view.evidenceTraces.map((trace) => [trace.id, trace.task, trace.outcome])).toEqual([
      [status, "Tell the customer where order 7 is", "success"],
      [refund, "Refund order 1042 through the payments API", "failure"],
    ]);
    expect(view.evidenceTraces[0]?.timestamp).toBeInstanceOf(Date);
    expect(view.evidenceRuns).toEqual([]);
    expect(view.evidence.traceIds).toHaveLength(3);

    // The bullet's lineage lists the trace that cited it, and the deltas that changed it.
    await alice.delta.approve({ deltaId: outcome.deltaId });
    const lineage = await caller.history.lineage({ playbookId, bulletId: "str-00002" });
    expect(lineage.citedBy).toMatchObject({
      total: 1,
      traces: [{ id: refund, outcome: "failure", task: "Refund order 1042 through the payments API" }],
    });
    expect(lineage.deltas.map((delta) => [delta.deltaId, delta.status])).toEqual([[outcome.deltaId, "applied"]]);
    expect((await caller.history.lineage({ playbookId, bulletId: "str-00001" })).citedBy).toEqual({ traces: [], total: 0 });
  });
});
