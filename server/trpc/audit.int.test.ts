// Every mutation of the app router writes exactly one audit entry, in its own transaction, naming
// who did it (the principal, never a header) with the request's id and address. A table gives each
// mutation a valid input; a mutation missing from the table fails the test, so a new one must be
// added here. Bad input changes nothing and writes no entry; a caller without the role is refused,
// changes nothing, and the refusal is audited. On embedded PGlite and PostgreSQL.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { systemWho, type AuditSource } from "@/server/audit/record";
import type { AuditAction, AuditActorKind } from "@/server/audit/schemas";
import { authenticate } from "@/server/auth/authenticate";
import { loadAuthSettings, setAuthSettings } from "@/server/auth/config";
import { SESSION_COOKIE } from "@/server/auth/cookies";
import { PEER_HEADER, sealPeer } from "@/server/auth/peer";
import type { Principal } from "@/server/auth/principal";
import type { RequestInfo } from "@/server/auth/request";
import * as auth from "@/server/auth/service";
import { createApiKey } from "@/server/apikeys/service";
import { proposeDelta } from "@/server/deltas/propose";
import { approveDelta } from "@/server/deltas/review";
import { editPlaybook } from "@/server/deltas/edit";
import { editDeltaInput, proposeDeltaInput } from "@/server/deltas/schemas";
import { createExperimentInput, decideInput } from "@/server/experiments/schemas";
import { createExperiment, decide } from "@/server/experiments/service";
import { importPlaybook } from "@/server/playbooks/import";
import { updateSettings } from "@/server/playbooks/manage";
import { importPlaybookInput, updateSettingsInput } from "@/server/playbooks/schemas";
import { ingestTraces } from "@/server/traces/service";
import { parseTraceBody } from "@/server/traces/schemas";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { SMALL_PLAYBOOK, twoVariants } from "@/server/testing/fixtures";
import { TRPCError } from "@trpc/server";
import { contextAs } from "./callers";
import { procedureAt, PUBLIC_PROCEDURES, procedureTable } from "./procedure-table";
import { createCaller } from "./root";
import type { Db } from "@/server/db/client";

const PASSWORD = "correct horse battery staple";
const SETUP = systemWho("test setup");
const SETUP_AUDIT: AuditSource = SETUP.audit;
/** The request every call of the walk is made in: its id and address must reach the entry. */
const REQUEST: RequestInfo = { id: "req-walk", ip: "203.0.113.7", userAgent: "vitest", local: false, loopbackBound: true, https: false };

/** What a fixture prepares: the input, and who calls when not the admin "ada" (then also who the entry names). */
interface Prepared {
  input: unknown;
  as?: Principal;
  actor?: { actorKind: AuditActorKind; actorName: string };
}

interface Fixture {
  action: AuditAction;
  prepare: (world: World) => Promise<Prepared>;
  /** Input that fails validation; default {} (null: the procedure takes no input). */
  bad?: unknown;
}

/** Builds what the calls need, through the services (as the system), before the count starts. */
class World {
  constructor(readonly db: Db) {}

  async playbook(name = "support"): Promise<string> {
    const result = await importPlaybook(
      this.db,
      SETUP,
      importPlaybookInput.parse({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name } }),
    );
    return result.playbookId;
  }

  async settings(playbookId: string, settings: Record<string, unknown>): Promise<void> {
    await updateSettings(this.db, SETUP, updateSettingsInput.parse({ playbookId, settings }));
  }

  async pendingDelta(playbookId: string): Promise<{ deltaId: string; operationId: string }> {
    const outcome = await proposeDelta(
      this.db,
      SETUP,
      proposeDeltaInput.parse({
        playbookId,
        rationale: "Lessons from the last reflection",
        operations: [{ operation: { type: "update", bulletId: "str-00002", content: "Back off before retrying a failed call." } }],
      }),
      { origin: "curator" },
    );
    const operation = await this.db.deltaOperation.findFirstOrThrow({ where: { deltaId: outcome.deltaId }, select: { id: true } });
    return { deltaId: outcome.deltaId, operationId: operation.id };
  }

  async approvedDelta(playbookId: string): Promise<string> {
    const { deltaId } = await this.pendingDelta(playbookId);
    await approveDelta(this.db, SETUP, { deltaId, edits: [] });
    return deltaId;
  }

  async edit(playbookId: string): Promise<void> {
    await editPlaybook(
      this.db,
      SETUP,
      editDeltaInput.parse({
        playbookId,
        reason: "Clearer",
        operations: [{ type: "update", bulletId: "str-00003", content: "Read every page before answering." }],
      }),
    );
  }

  async user(name: string, role: "viewer" | "curator" | "admin" = "curator") {
    // The first account must be an admin.
    if ((await this.db.user.count()) === 0 && role !== "admin") await this.user("root", "admin");
    return auth.createUser(this.db, SETUP_AUDIT, { email: `${name}@example.test`, name, role, password: PASSWORD });
  }

  /** A signed-in session of the user: the principal as a request with its cookie is authenticated. */
  async session(email: string): Promise<Principal> {
    const { session } = await auth.signIn(this.db, REQUEST, { sessionDays: 30 }, { email, password: PASSWORD });
    const headers = new Headers({
      host: "127.0.0.1:3000",
      [PEER_HEADER]: sealPeer({ remote: "127.0.0.1", listen: "127.0.0.1", forwarded: false }),
      cookie: `${SESSION_COOKIE}=${session.token}`,
    });
    return (await authenticate(this.db, headers)).principal;
  }

  async experiment(playbook = "support"): Promise<void> {
    await createExperiment(this.db, SETUP, createExperimentInput.parse(twoVariants({ playbook, status: "running" })));
  }
}

const admin = (name: string) => ({ actorKind: "user" as const, actorName: `${name}@example.test` });
const sessionOf = (principal: Principal) => ({ as: principal, actor: admin(principal.kind === "user" ? principal.name : "?") });

/** One valid call per mutation of the app router. */
const FIXTURES: Record<string, Fixture> = {
  "apiKeys.create": {
    action: "apikey.create",
    prepare: async () => ({ input: { name: "support agent", scopes: ["traces:write"], playbooks: "all" } }),
  },
  "apiKeys.revoke": {
    action: "apikey.revoke",
    prepare: async (w) => {
      const key = await createApiKey(w.db, SETUP_AUDIT, loadAuthSettings({}), {
        name: "old agent",
        scopes: ["traces:write"],
        playbooks: "all",
      });
      return { input: { keyId: key.id } };
    },
  },
  "apiKeys.transfer": {
    action: "apikey.transfer",
    prepare: async (w) => {
      const key = await createApiKey(w.db, SETUP_AUDIT, loadAuthSettings({}), {
        name: "service agent",
        scopes: ["admin"],
        playbooks: "all",
      });
      return { input: { keyId: key.id, toUserId: (await w.user("cleo", "admin")).userId } };
    },
  },
  "auth.acceptInvite": {
    action: "user.invite_accept",
    prepare: async (w) => {
      await w.user("root", "admin");
      const link = await auth.inviteUser(w.db, SETUP_AUDIT, { email: "ivy@example.test", name: "Ivy", role: "viewer" });
      const token = link.path.split("/").at(-1) ?? "";
      return { input: { token, name: "Ivy", password: PASSWORD }, as: { kind: "anonymous" }, actor: admin("ivy") };
    },
  },
  "auth.changePassword": {
    action: "user.password",
    prepare: async (w) => {
      await w.user("cleo");
      const principal = await w.session("cleo@example.test");
      return { input: { currentPassword: PASSWORD, newPassword: `${PASSWORD} again` }, ...sessionOf(principal), actor: admin("cleo") };
    },
  },
  "auth.endSession": {
    action: "session.revoke",
    prepare: async (w) => {
      await w.user("cleo");
      const other = await w.session("cleo@example.test");
      const principal = await w.session("cleo@example.test");
      const sessionId = other.kind === "user" ? other.sessionId : null;
      return { input: { sessionId }, as: principal, actor: admin("cleo") };
    },
  },
  "auth.setup": {
    action: "user.setup",
    prepare: async () => ({
      input: { email: "ada@example.test", name: "Ada", password: PASSWORD },
      as: { kind: "local", name: "local user" },
      // The local operator creates the first admin (with a setup token it would be the new admin).
      actor: { actorKind: "local", actorName: "local user" },
    }),
  },
  "auth.signIn": {
    action: "session.sign_in",
    prepare: async (w) => {
      await w.user("cleo");
      return { input: { email: "cleo@example.test", password: PASSWORD }, as: { kind: "anonymous" }, actor: admin("cleo") };
    },
  },
  "auth.signOut": {
    action: "session.sign_out",
    bad: null,
    prepare: async (w) => {
      await w.user("cleo");
      return { input: undefined, as: await w.session("cleo@example.test"), actor: admin("cleo") };
    },
  },
  "delta.approve": {
    action: "delta.approve",
    prepare: async (w) => ({ input: { deltaId: (await w.pendingDelta(await w.playbook())).deltaId } }),
  },
  "delta.bulk": {
    action: "delta.approve",
    prepare: async (w) => ({ input: { action: "approve", deltaIds: [(await w.pendingDelta(await w.playbook())).deltaId] } }),
  },
  "delta.edit": {
    action: "bullet.update",
    prepare: async (w) => ({
      input: {
        playbookId: await w.playbook(),
        reason: "Backoff avoids rate limits",
        operations: [{ type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." }],
      },
    }),
  },
  "delta.propose": {
    action: "delta.propose",
    prepare: async (w) => ({
      input: {
        playbookId: await w.playbook(),
        rationale: "Docs answer most questions",
        operations: [{ operation: { type: "add", section: "strategies_and_insights", content: "Check the docs first." } }],
      },
    }),
  },
  "delta.proposePruning": {
    action: "delta.propose",
    prepare: async (w) => {
      const playbookId = await w.playbook();
      await w.settings(playbookId, { pruning: { enabled: true } });
      return { input: { playbookId } };
    },
  },
  "delta.rebase": {
    action: "delta.rebase",
    prepare: async (w) => ({ input: { deltaId: (await w.pendingDelta(await w.playbook())).deltaId } }),
  },
  "delta.reject": {
    action: "delta.reject",
    prepare: async (w) => ({ input: { deltaId: (await w.pendingDelta(await w.playbook())).deltaId, reason: "It is used" } }),
  },
  "delta.undo": {
    action: "delta.undo",
    prepare: async (w) => ({ input: { deltaId: await w.approvedDelta(await w.playbook()) } }),
  },
  "delta.updateOperation": {
    action: "delta.edit",
    prepare: async (w) => {
      const { deltaId, operationId } = await w.pendingDelta(await w.playbook());
      return {
        input: { deltaId, operationId, operation: { type: "update", bulletId: "str-00002", content: "Back off, then retry." } },
      };
    },
  },
  "experiments.create": {
    action: "experiment.create",
    prepare: async (w) => {
      await w.playbook();
      return { input: twoVariants() };
    },
  },
  "experiments.archive": {
    action: "experiment.archive",
    bad: { key: "" },
    prepare: async (w) => {
      await w.playbook();
      await w.experiment();
      await decide(w.db, SETUP, decideInput.parse({ key: "tone", action: "stop" }));
      return { input: { key: "tone" } };
    },
  },
  "experiments.decide": {
    action: "experiment.stop",
    prepare: async (w) => {
      await w.playbook();
      await w.experiment();
      return { input: { key: "tone", action: "stop" } };
    },
  },
  "experiments.update": {
    action: "experiment.update",
    prepare: async (w) => {
      await w.playbook();
      await w.experiment();
      return { input: { key: "tone", hypothesis: "Less is more." } };
    },
  },
  "history.rollback": {
    action: "playbook.rollback",
    prepare: async (w) => {
      const playbookId = await w.playbook();
      await w.edit(playbookId);
      return { input: { playbookId, version: 1, reason: "The edit lost detail" } };
    },
  },
  "playbook.create": {
    action: "playbook.create",
    prepare: async () => ({ input: { name: "billing" } }),
  },
  "playbook.import": {
    action: "playbook.import",
    prepare: async () => ({ input: { content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "imported" } } }),
  },
  "playbook.updateSettings": {
    action: "settings.update",
    prepare: async (w) => ({ input: { playbookId: await w.playbook(), settings: { autoApply: true } } }),
  },
  "runs.curateNow": {
    action: "run.curate",
    prepare: async (w) => ({ input: { playbookId: await w.playbook() } }),
  },
  "runs.reflectNow": {
    action: "run.reflect",
    prepare: async (w) => {
      const playbookId = await w.playbook();
      await w.settings(playbookId, { reflectorMode: "manual" });
      await ingestTraces(w.db, parseTraceBody({ playbook: "support", task: "Refund order 7", outcome: "failure" }), { source: "api" });
      return { input: { playbookId } };
    },
  },
  "runs.retry": {
    action: "run.retry",
    prepare: async (w) => {
      const playbookId = await w.playbook();
      const run = await w.db.run.create({
        data: { playbookId, role: "curator", status: "failed", provider: "offline", model: "offline", error: "The provider timed out." },
        select: { id: true },
      });
      return { input: { runId: run.id } };
    },
  },
  "runs.setPaused": {
    action: "settings.update",
    prepare: async (w) => ({ input: { playbookId: await w.playbook(), paused: true } }),
  },
  "runs.setStudioBudget": {
    action: "budget.update",
    bad: { monthlyTokenBudget: -1, monthlyCostBudgetUsd: null },
    prepare: async () => ({ input: { monthlyTokenBudget: 1_000_000, monthlyCostBudgetUsd: 20 } }),
  },
  "traces.ingest": {
    action: "trace.ingest",
    prepare: async (w) => {
      await w.playbook();
      return { input: { traces: [{ playbook: "support", task: "Refund order 7", outcome: "success" }] } };
    },
  },
  "traces.deleteSelection": {
    action: "trace.delete",
    prepare: async (w) => ({ input: { playbookId: await w.playbook(), unitId: "user-7" } }),
  },
  "traces.setStudioRedaction": {
    action: "settings.update",
    bad: { secrets: true, cards: true, emails: false, phones: false, ibans: false, customPatterns: [{ name: "bad", pattern: "(a)\\1" }] },
    prepare: async () => ({
      input: {
        secrets: true,
        cards: true,
        emails: true,
        phones: false,
        ibans: false,
        customPatterns: [{ name: "ticket", pattern: "TCK-[0-9]{6}" }],
      },
    }),
  },
  "retention.runNow": {
    action: "retention.run",
    bad: null,
    prepare: async (w) => {
      await w.playbook();
      return { input: undefined };
    },
  },
  "retention.setStudioDefault": {
    action: "settings.update",
    bad: { traces: 0, rejectedDeltas: 90, failedRuns: 7 },
    prepare: async () => ({ input: { traces: 14, rejectedDeltas: 60, failedRuns: 3 } }),
  },
  "users.create": {
    action: "user.create",
    prepare: async () => ({ input: { email: "cleo@example.test", name: "Cleo", role: "curator", password: PASSWORD } }),
  },
  "users.delete": {
    action: "user.delete",
    prepare: async (w) => ({ input: { userId: (await w.user("cleo")).userId } }),
  },
  "users.disable": {
    action: "user.disable",
    prepare: async (w) => ({ input: { userId: (await w.user("cleo")).userId } }),
  },
  "users.enable": {
    action: "user.enable",
    prepare: async (w) => {
      const { userId } = await w.user("cleo");
      await auth.disableUser(w.db, SETUP_AUDIT, null, userId);
      return { input: { userId } };
    },
  },
  "users.endSessions": {
    action: "session.revoke",
    prepare: async (w) => {
      const { userId } = await w.user("cleo");
      await w.session("cleo@example.test");
      return { input: { userId } };
    },
  },
  "users.invite": {
    action: "user.invite",
    prepare: async () => ({ input: { email: "ivy@example.test", name: "Ivy", role: "viewer" } }),
  },
  "users.reinvite": {
    action: "user.invite",
    prepare: async (w) => ({ input: { userId: (await w.user("cleo")).userId } }),
  },
  "users.setRole": {
    action: "user.role",
    prepare: async (w) => ({ input: { userId: (await w.user("cleo")).userId, role: "admin" } }),
  },
};

describe.each(testEngines())("the audit entry of every mutation on %s", (engine) => {
  let database: TestDatabase;
  const mutations = procedureTable().filter((entry) => entry.type === "mutation");

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    setAuthSettings(loadAuthSettings({}));
  });
  afterAll(async () => {
    setAuthSettings(undefined);
    await database?.close();
  });
  beforeEach(async () => database.reset());

  /** Row counts of every table but the rate limits' (a refusal counts there), and the playbooks' versions. */
  async function fingerprint(): Promise<string> {
    const tables = await database.db.$queryRaw<{ name: string }[]>`
      SELECT tablename AS name FROM pg_tables
      WHERE schemaname = current_schema() AND tablename NOT IN ('_prisma_migrations', 'RateLimit', 'AuditEntry')
      ORDER BY tablename`;
    const counts: string[] = [];
    for (const { name } of tables) {
      const [row] = await database.db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`);
      counts.push(`${name}=${row?.n ?? 0}`);
    }
    const versions = await database.db.playbook.findMany({
      select: { name: true, version: true, settings: true },
      orderBy: { name: "asc" },
    });
    return createHash("sha256").update(JSON.stringify({ counts, versions })).digest("hex");
  }

  async function entriesAfter(count: number) {
    const entries = await database.db.auditEntry.findMany({
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { action: true, actorKind: true, actorName: true, requestId: true, ip: true, summary: true },
    });
    return entries.slice(count);
  }

  it("has a valid input for every mutation of the router, and only for those", () => {
    expect(mutations.length).toBeGreaterThan(30);
    const missing = mutations.map((entry) => entry.path).filter((path) => !(path in FIXTURES));
    expect(missing, "add the new mutation to FIXTURES in server/trpc/audit.int.test.ts").toEqual([]);
    expect(Object.keys(FIXTURES).filter((path) => !mutations.some((entry) => entry.path === path))).toEqual([]);
  });

  it.each(mutations.map((entry) => [entry.path, entry.access] as const))(
    "%s writes one entry naming who did it, with the request's id and address",
    async (path) => {
      const fixture = FIXTURES[path];
      if (!fixture) throw new Error(`${path} has no fixture`);
      const world = new World(database.db);
      const prepared = await fixture.prepare(world);
      const principal: Principal = prepared.as ?? {
        kind: "user",
        userId: (await world.user("ada", "admin")).userId,
        email: "ada@example.test",
        name: "ada",
        role: "admin",
        sessionId: null,
      };
      const caller = createCaller(contextAs(database.db, principal, { request: REQUEST }));

      const before = await database.db.auditEntry.count();
      await procedureAt(caller, path)(prepared.input);
      const entries = await entriesAfter(before);
      expect(
        entries.map((entry) => entry.action),
        path,
      ).toEqual([fixture.action]);
      const [entry] = entries;
      expect(entry).toMatchObject({ ...(prepared.actor ?? admin("ada")), requestId: REQUEST.id, ip: REQUEST.ip });
    },
  );

  it.each(mutations.map((entry) => [entry.path] as const))("%s with bad input changes nothing and writes no entry", async (path) => {
    const fixture = FIXTURES[path];
    if (!fixture || fixture.bad === null) return;
    const world = new World(database.db);
    const prepared = await fixture.prepare(world);
    const caller = createCaller(contextAs(database.db, prepared.as ?? { kind: "local", name: "local user" }, { request: REQUEST }));
    const state = await fingerprint();
    const before = await database.db.auditEntry.count();
    const error = await procedureAt(
      caller,
      path,
    )(fixture.bad ?? {}).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error, path).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code, path).toBe("BAD_REQUEST");
    expect(await entriesAfter(before)).toEqual([]);
    expect(await fingerprint()).toBe(state);
  });

  it.each(mutations.filter((entry) => !(PUBLIC_PROCEDURES as readonly string[]).includes(entry.path) && entry.access !== "account"))(
    "$path refused to a viewer changes nothing, and the attempt is audited",
    async ({ path, access }) => {
      const fixture = FIXTURES[path];
      if (!fixture) throw new Error(`${path} has no fixture`);
      const prepared = await fixture.prepare(new World(database.db));
      const viewer = createCaller(
        contextAs(
          database.db,
          { kind: "user", userId: crypto.randomUUID(), email: "val@example.test", name: "val", role: "viewer", sessionId: null },
          { request: REQUEST },
        ),
      );
      const state = await fingerprint();
      const before = await database.db.auditEntry.count();
      await expect(procedureAt(viewer, path)(prepared.input)).rejects.toMatchObject({ code: "FORBIDDEN" });
      const entries = await entriesAfter(before);
      expect(entries).toMatchObject([
        {
          action: "access.denied",
          actorKind: "user",
          actorName: "val@example.test",
          requestId: REQUEST.id,
          ip: REQUEST.ip,
          summary: { after: { needs: access } },
        },
      ]);
      expect(await fingerprint()).toBe(state);
    },
  );
});
