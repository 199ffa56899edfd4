// The playbook restriction, procedure by procedure: every procedure of the procedure table has an
// expectation here (a procedure missing from the table fails), its declared address agrees with it,
// and an admin key restricted to playbook "alpha" is let through on alpha, refused on "beta" (403
// naming the restriction, nothing changed), refused studio-wide procedures, and shown only alpha in lists.
// On embedded PGlite and PostgreSQL.
import { randomUUID } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "@/server/auth/principal";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { SMALL_PLAYBOOK, twoVariants } from "@/server/testing/fixtures";
import { callerAs, contextAs } from "@/server/trpc/callers";
import { createCallerFactory, createTRPCRouter, viewerProcedure } from "@/server/trpc/init";
import { procedureAt, procedureTable, type ProcedureEntry } from "@/server/trpc/procedure-table";
import type { PlaybookAddress } from "./restriction";

/**
 * What a restricted caller meets: addressed (allowed on its playbook, refused on another), listed
 * (answered for its playbooks only), studio (refused), bounded (creates nothing beyond its rights),
 * unrestricted (about no playbook: the caller's own account, signing in, a calculation).
 */
type Expectation = "addressed" | "listed" | "studio" | "bounded" | "unrestricted";

const EXPECTED: Record<string, Expectation> = {
  "apiKeys.create": "bounded",
  "apiKeys.list": "listed",
  "apiKeys.revoke": "addressed",
  "apiKeys.transfer": "studio",
  "audit.list": "addressed",
  "auth.acceptInvite": "unrestricted",
  "auth.changePassword": "unrestricted",
  "auth.endSession": "unrestricted",
  "auth.inviteInfo": "unrestricted",
  "auth.session": "unrestricted",
  "auth.sessions": "unrestricted",
  "auth.setup": "unrestricted",
  "auth.signIn": "unrestricted",
  "auth.signOut": "unrestricted",
  "context.get": "addressed",
  "delta.approve": "addressed",
  "delta.bulk": "addressed",
  "delta.edit": "addressed",
  "delta.get": "addressed",
  "delta.list": "listed",
  "delta.propose": "addressed",
  "delta.proposePruning": "addressed",
  "delta.rebase": "addressed",
  "delta.reject": "addressed",
  "delta.undo": "addressed",
  "delta.updateOperation": "addressed",
  "delta.watch": "addressed",
  "experiments.archive": "addressed",
  "experiments.create": "addressed",
  "experiments.decide": "addressed",
  "experiments.get": "addressed",
  "experiments.list": "listed",
  "experiments.results": "addressed",
  "experiments.sampleSize": "unrestricted",
  "experiments.update": "addressed",
  "history.at": "addressed",
  "history.diff": "addressed",
  "history.lineage": "addressed",
  "history.rollback": "addressed",
  "history.versions": "addressed",
  "metrics.overview": "listed",
  "metrics.playbook": "addressed",
  "metrics.versionFigures": "addressed",
  "playbook.bullet": "addressed",
  "playbook.bullets": "addressed",
  "playbook.create": "studio",
  "playbook.export": "addressed",
  "playbook.get": "addressed",
  "playbook.import": "addressed",
  "playbook.list": "listed",
  "playbook.updateSettings": "addressed",
  "retention.preview": "studio",
  "retention.runNow": "studio",
  "retention.setStudioDefault": "studio",
  "retention.status": "studio",
  "retention.studioDefault": "studio",
  "runs.curateNow": "addressed",
  "runs.get": "addressed",
  "runs.list": "listed",
  "runs.reflectNow": "addressed",
  "runs.retry": "addressed",
  "runs.setPaused": "addressed",
  "runs.setStudioBudget": "studio",
  "runs.status": "addressed",
  "runs.studioBudget": "studio",
  "storage.report": "studio",
  "traces.deleteSelection": "addressed",
  "traces.exportSelection": "addressed",
  "traces.get": "addressed",
  "traces.ingest": "addressed",
  "traces.list": "listed",
  "traces.redactionPreview": "addressed",
  "traces.selectionSummary": "addressed",
  "traces.setStudioRedaction": "studio",
  "traces.studioRedaction": "studio",
  "users.create": "studio",
  "users.delete": "studio",
  "users.disable": "studio",
  "users.enable": "studio",
  "users.endSessions": "studio",
  "users.invite": "studio",
  "users.list": "studio",
  "users.reinvite": "studio",
  "users.setRole": "studio",
};

/** The addresses each expectation allows a procedure to declare. */
const ADDRESSES_OF: Record<Expectation, readonly PlaybookAddress[]> = {
  addressed: [
    "playbookId",
    "playbookId!",
    "deltaId",
    "deltaIds",
    "runId",
    "traceId",
    "traceIds",
    "experimentKey",
    "experimentPlaybooks",
    "tracePlaybooks",
    "selection",
    "importTarget",
    "apiKey",
  ],
  listed: ["listed", "playbookId?"],
  studio: ["studio"],
  bounded: ["newApiKey"],
  unrestricted: ["own", "none"],
};

/** What the table misses: procedures without an expectation, or whose declared address disagrees with it. */
function mismatches(table: readonly Pick<ProcedureEntry, "path" | "playbook">[], expected: Record<string, Expectation>): string[] {
  const problems: string[] = [];
  for (const entry of table) {
    const expectation = expected[entry.path];
    if (!expectation) problems.push(`${entry.path}: no expectation in this test's table`);
    else if (!entry.playbook) problems.push(`${entry.path}: declares no playbook address (meta.playbook)`);
    else if (entry.playbook.some((address) => !ADDRESSES_OF[expectation].includes(address))) {
      problems.push(`${entry.path}: declares ${entry.playbook.join(" + ")}, expected ${expectation}`);
    }
  }
  for (const path of Object.keys(expected)) if (!table.some((entry) => entry.path === path)) problems.push(`${path}: no such procedure`);
  return problems;
}

describe("the restriction table", () => {
  const table = procedureTable();

  it("has an expectation for every procedure, agreeing with what the procedure declares", () => {
    expect(table.length).toBeGreaterThan(80);
    expect(mismatches(table, EXPECTED)).toEqual([]);
  });

  it("fails for a procedure that is not in it, or that declares no address", () => {
    const withDummy = [...table, { path: "dummy.added", playbook: ["playbookId"] as PlaybookAddress[] }];
    expect(mismatches(withDummy, EXPECTED)).toEqual(["dummy.added: no expectation in this test's table"]);
    const undeclared = table.map((entry) => (entry.path === "delta.approve" ? { ...entry, playbook: null } : entry));
    expect(mismatches(undeclared, EXPECTED)).toEqual(["delta.approve: declares no playbook address (meta.playbook)"]);
  });
});

const RESTRICTED = /restricted to the playbook "alpha"/;

/** "refused" with the restriction's 403, "allowed" for anything else (a result, or an error that is not the restriction's). */
async function outcome(call: Promise<unknown>): Promise<{ verdict: "allowed" | "refused"; result?: unknown; message?: string }> {
  try {
    return { verdict: "allowed", result: await call };
  } catch (error) {
    if (error instanceof TRPCError && error.code === "FORBIDDEN" && RESTRICTED.test(error.message)) {
      return { verdict: "refused", message: error.message };
    }
    return { verdict: "allowed", message: error instanceof Error ? error.message : String(error) };
  }
}

describe.each(testEngines())("a key restricted to one playbook, on %s", (engine) => {
  let database: TestDatabase;
  const alpha = { id: "", delta: "", trace: "", run: "", key: "" };
  const beta = { id: "", delta: "", trace: "", run: "", key: "" };
  let everyPlaybookKey = "";
  let restricted: ReturnType<typeof callerAs>;
  let principal: Principal;

  async function seed(local: ReturnType<typeof callerAs>, name: "alpha" | "beta", into: typeof alpha) {
    const imported = await local.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name } });
    into.id = imported.playbookId;
    const proposed = await local.delta.propose({
      playbookId: into.id,
      operations: [
        { operation: { type: "add", section: "strategies_and_insights", content: `Confirm the ${name} order number before refunding.` } },
      ],
      rationale: "From a review.",
    });
    into.delta = proposed.deltaId;
    const ingested = await local.traces.ingest({
      traces: [{ playbook: name, task: "Refund order 7", output: "Done.", outcome: "failure" }],
    });
    into.trace = ingested.traces[0]!.id;
    // Ingesting queues the trace's reflection (or reflectNow does).
    const queued = await local.runs.reflectNow({ playbookId: into.id, traceIds: [into.trace] });
    into.run = queued.runIds[0] ?? (await local.runs.list({ playbookId: into.id })).items[0]!.id;
    await local.experiments.create(twoVariants({ key: `exp-${name}`, playbook: name }));
    into.key = (await local.apiKeys.create({ name: `${name} reader`, scopes: ["playbooks:read"], playbooks: [into.id] })).id;
  }

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    const local = callerAs(database.db, "local");
    await seed(local, "alpha", alpha);
    await seed(local, "beta", beta);
    everyPlaybookKey = (await local.apiKeys.create({ name: "every playbook", scopes: ["playbooks:read"], playbooks: "all" })).id;
    expect(alpha.run && beta.run).toBeTruthy();
    principal = { kind: "apikey", keyId: randomUUID(), name: "alpha admin", scopes: ["admin", "playbooks:read"], playbookIds: [alpha.id] };
    restricted = callerAs(database.db, principal);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** The input that addresses one playbook's things, by address kind. */
  function inputFor(address: PlaybookAddress, own: typeof alpha, name: string): Record<string, unknown> {
    switch (address) {
      case "playbookId":
      case "playbookId?":
      case "playbookId!":
        return { playbookId: own.id };
      case "deltaId":
        return { deltaId: own.delta };
      case "deltaIds":
        return { deltaIds: [alpha.delta, own.delta] };
      case "runId":
        return { runId: own.run };
      case "traceId":
        return { traceId: own.trace };
      case "traceIds":
        return { traceIds: [own.trace] };
      case "experimentKey":
        return { key: `exp-${name}` };
      case "experimentPlaybooks":
        return {
          ...twoVariants({ key: `new-${randomUUID().slice(0, 8)}`, playbook: "alpha" }),
          variants: [{ key: "A" }, { key: "B", playbook: name }],
        };
      case "tracePlaybooks":
        return {
          traces: [
            { playbook: "alpha", task: "t", output: "o" },
            { playbook: name, task: "t", output: "o" },
          ],
        };
      case "selection":
        return { selection: { playbookId: own.id, unitId: "unit-1" } };
      case "importTarget":
        return { content: SMALL_PLAYBOOK, format: "ace", target: { kind: "existing", playbookId: own.id, mode: "propose" } };
      case "apiKey":
        return { keyId: own.key };
      default:
        throw new Error(`${address} addresses no playbook`);
    }
  }

  const table = procedureTable();
  const addressed = table.filter((entry) => EXPECTED[entry.path] === "addressed");

  it("is refused every procedure addressed to another playbook's things, and nothing changes", async () => {
    const versionBefore = (await callerAs(database.db, "local").playbook.get({ playbookId: beta.id })).version;
    const outcomes: Record<string, string> = {};
    for (const entry of addressed) {
      for (const address of entry.playbook!) {
        // Every other address of the procedure names alpha's things: only this one points at beta.
        const input = Object.assign(
          {},
          ...entry.playbook!.map((a) => inputFor(a, a === address ? beta : alpha, a === address ? "beta" : "alpha")),
        );
        outcomes[`${entry.path} by ${address}`] = (await outcome(procedureAt(restricted, entry.path)(input))).verdict;
      }
    }
    expect(Object.values(outcomes).length).toBeGreaterThan(40);
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(outcomes).map((key) => [key, "refused"])));
    const local = callerAs(database.db, "local");
    expect((await local.playbook.get({ playbookId: beta.id })).version).toBe(versionBefore);
    expect((await local.delta.get({ deltaId: beta.delta })).status).toBe("pending");
    expect((await local.experiments.get({ key: "exp-beta" })).status).toBe("draft");
    expect((await local.apiKeys.list()).find((key) => key.id === beta.key)?.status).toBe("active");
  });

  it("is let through on its own playbook's things", async () => {
    const outcomes: Record<string, string> = {};
    // Reads first: a mutation on alpha (approving, archiving) may change what a read finds.
    const ordered = [...addressed].sort((a, b) => Number(a.type === "mutation") - Number(b.type === "mutation"));
    for (const entry of ordered) {
      const input = Object.assign({}, ...entry.playbook!.map((address) => inputFor(address, alpha, "alpha")));
      if (entry.path === "traces.ingest") input.traces = [{ playbook: "alpha", task: "t", output: "o" }];
      if (entry.path === "experiments.create") input.variants = [{ key: "A" }, { key: "B" }];
      const result = await outcome(procedureAt(restricted, entry.path)(input));
      outcomes[entry.path] = result.verdict === "refused" ? `refused: ${result.message}` : "allowed";
    }
    expect(outcomes).toEqual(Object.fromEntries(addressed.map((entry) => [entry.path, "allowed"])));
  });

  it("approving another playbook's delta is refused, and the delta stays pending (the probe)", async () => {
    await expect(restricted.delta.approve({ deltaId: beta.delta })).rejects.toThrow(
      /API key "alpha admin" is restricted to the playbook "alpha"; this is about another playbook\. Nothing was changed/,
    );
    await expect(restricted.delta.bulk({ action: "reject", deltaIds: [beta.delta], reason: "no" })).rejects.toThrow(RESTRICTED);
    expect((await callerAs(database.db, "local").delta.get({ deltaId: beta.delta })).status).toBe("pending");
  });

  it("is refused studio-wide procedures with a 403 that says they are studio-wide", async () => {
    const studio = table.filter((entry) => EXPECTED[entry.path] === "studio");
    expect(studio.length).toBeGreaterThan(15);
    for (const entry of studio) {
      await expect(procedureAt(restricted, entry.path)({}), entry.path).rejects.toThrow(
        /restricted to the playbook "alpha"; this is studio-wide/,
      );
    }
    // Also where the input decides: a new playbook by import, the whole audit log, a key for every playbook.
    await expect(
      restricted.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "gamma" } }),
    ).rejects.toThrow(/studio-wide/);
    await expect(restricted.audit.list({})).rejects.toThrow(/studio-wide/);
    await expect(restricted.apiKeys.revoke({ keyId: everyPlaybookKey })).rejects.toThrow(/studio-wide/);
    expect((await callerAs(database.db, "local").playbook.list()).map((playbook) => playbook.name).sort()).toEqual(["alpha", "beta"]);
  });

  it("sees only its own playbook in every list, with totals counted over it", async () => {
    const rowsOf: Record<string, (result: never) => { playbookIds: string[]; total?: number }> = {
      "apiKeys.list": (keys: { playbooks: { id: string }[] | null }[]) => ({
        playbookIds: keys.flatMap((key) => (key.playbooks ?? [{ id: "all" }]).map((p) => p.id)),
      }),
      "delta.list": (page: { items: { playbookId: string }[]; total: number }) => ({
        playbookIds: page.items.map((item) => item.playbookId),
        total: page.total,
      }),
      "experiments.list": (items: { playbookId: string }[]) => ({ playbookIds: items.map((item) => item.playbookId) }),
      "metrics.overview": (overview: { playbooks: { playbookId: string }[] }) => ({
        playbookIds: overview.playbooks.map((row) => row.playbookId),
      }),
      "playbook.list": (playbooks: { id: string }[]) => ({ playbookIds: playbooks.map((playbook) => playbook.id) }),
      "runs.list": (page: { items: { playbookId: string }[]; total: number }) => ({
        playbookIds: page.items.map((item) => item.playbookId),
        total: page.total,
      }),
      "traces.list": (page: { items: { playbookId: string }[]; total: number }) => ({
        playbookIds: page.items.map((item) => item.playbookId),
        total: page.total,
      }),
    };
    const listed = table.filter((entry) => EXPECTED[entry.path] === "listed").map((entry) => entry.path);
    expect(Object.keys(rowsOf).sort()).toEqual(listed);
    const local = callerAs(database.db, "local");
    for (const path of listed) {
      const everything = rowsOf[path]!((await procedureAt(local, path)({})) as never);
      expect(new Set(everything.playbookIds), `${path} as the local operator`).toContain(beta.id);
      const mine = rowsOf[path]!((await procedureAt(restricted, path)({})) as never);
      expect(mine.playbookIds.length, path).toBeGreaterThan(0);
      expect(new Set(mine.playbookIds), path).toEqual(new Set([alpha.id]));
      if (mine.total !== undefined) expect(mine.total, path).toBe(mine.playbookIds.length);
    }
  });

  it("creates keys only within its own rights, and no user", async () => {
    await expect(restricted.apiKeys.create({ name: "wide", scopes: ["admin"], playbooks: "all" })).rejects.toThrow(
      /restricted to the playbook "alpha"; it cannot create a key for every playbook/,
    );
    await expect(restricted.apiKeys.create({ name: "other", scopes: ["admin"], playbooks: [beta.id] })).rejects.toThrow(RESTRICTED);
    await expect(restricted.apiKeys.create({ name: "more", scopes: ["admin", "traces:write"], playbooks: [alpha.id] })).rejects.toThrow(
      /cannot create a key with scopes it does not hold itself \(traces:write\)/,
    );
    await expect(
      restricted.users.create({ email: "eve@example.test", name: "Eve", role: "admin", password: "a long enough password" }),
    ).rejects.toThrow(/studio-wide/);
    const made = await restricted.apiKeys.create({ name: "alpha helper", scopes: ["playbooks:read"], playbooks: [alpha.id] });
    const names = (await callerAs(database.db, "local").apiKeys.list()).map((key) => key.name);
    expect(names).toContain(made.name);
    expect(names).not.toContain("wide");
    expect(names).not.toContain("other");
    expect(names).not.toContain("more");
  });

  it("is refused a procedure that declares no address, while others may call it", async () => {
    const dummy = createTRPCRouter({ undeclared: viewerProcedure.query(() => "ran") });
    const asRestricted = createCallerFactory(dummy)(contextAs(database.db, principal));
    await expect(asRestricted.undeclared()).rejects.toThrow(/does not say which playbooks it touches/);
    const asLocal = createCallerFactory(dummy)(contextAs(database.db, "local"));
    await expect(asLocal.undeclared()).resolves.toBe("ran");
  });
});
