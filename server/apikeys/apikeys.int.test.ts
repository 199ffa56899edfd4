// API keys and the /api/v1 wrapper against embedded PGlite and PostgreSQL: keys are shown once and
// stored as a keyed hash; a route answers 401 without a valid key, 403 naming the missing scope or
// playbook, 429 with Retry-After past the key's limit; a laptop without accounts needs no key.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { loadAuthSettings, setAuthSettings } from "@/server/auth/config";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import type { ApiScope } from "./schemas";
import { VERIFIED_KEY_TTL_MS } from "./service";

vi.mock("@/server/runs/triggers", () => ({ onTracesStored: async () => undefined }));

const { GET: getContext } = await import("@/app/api/v1/playbooks/[name]/context/route");
const { POST: postTraces } = await import("@/app/api/v1/traces/route");

interface ErrorBody {
  error: { code: string; message: string };
}

function contextRequest(name: string, key?: string, headers: Record<string, string> = {}) {
  const request = new Request(`http://localhost/api/v1/playbooks/${encodeURIComponent(name)}/context`, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
  return getContext(request, { params: Promise.resolve({ name }) });
}

function tracesRequest(body: unknown, key?: string, headers: Record<string, string> = {}) {
  return postTraces(
    new Request("http://localhost/api/v1/traces", {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      body: JSON.stringify(body),
    }),
  );
}

async function errorOf(response: Response): Promise<ErrorBody["error"]> {
  return ((await response.json()) as ErrorBody).error;
}

describe.each(testEngines())("API keys on %s", (engine) => {
  let database: TestDatabase;
  let admin: ReturnType<typeof callerAs>;
  let supportId: string;
  let otherId: string;

  beforeAll(async () => {
    database = await openTestDatabase(engine, { serve: true });
  });
  afterAll(async () => {
    setAuthSettings(undefined);
    await database?.close();
  });
  beforeEach(async () => {
    await database.reset();
    setAuthSettings(loadAuthSettings({}));
    admin = callerAs(database.db, "local");
    ({ playbookId: supportId } = await admin.playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: "support" },
    }));
    ({ playbookId: otherId } = await admin.playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: "other" },
    }));
  });

  const key = (scopes: ApiScope[], extra: { playbooks?: "all" | string[]; rateLimitPerMinute?: number; expiresInDays?: number } = {}) =>
    admin.apiKeys.create({
      name: `key ${scopes.join(" ")}`,
      scopes,
      playbooks: extra.playbooks ?? "all",
      rateLimitPerMinute: extra.rateLimitPerMinute ?? null,
      expiresInDays: extra.expiresInDays ?? null,
    });

  describe("with no account on a laptop", () => {
    it("the agent API needs no key, but a key that is sent is checked", async () => {
      expect((await contextRequest("support")).status).toBe(200);
      const bad = await contextRequest("support", "ace_aaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
      expect(bad.status).toBe(401);
    });

    it("refuses a post from another site's page (a form aimed at the laptop's studio)", async () => {
      const response = await tracesRequest({ playbook: "support", task: "x" }, undefined, {
        "sec-fetch-site": "cross-site",
        origin: "https://evil.example",
      });
      expect(response.status).toBe(403);
      expect((await errorOf(response)).message).toMatch(/another site \(https:\/\/evil\.example\)/);
      expect(await database.db.trace.count()).toBe(0);
    });
  });

  describe("once an account exists", () => {
    beforeEach(async () => {
      await admin.users.create({ email: "ada@example.com", role: "admin", password: "correct horse battery staple" });
    });

    it("a key is shown once, listed by a masked preview, and stored only as a keyed hash", async () => {
      const created = await key(["context:read"]);
      expect(created.secret).toMatch(/^ace_[a-z2-7]{13}_[a-z2-7]{52}$/);
      const [listed] = await admin.apiKeys.list();
      expect(listed).toMatchObject({
        name: "key context:read",
        preview: created.preview,
        status: "active",
        scopes: ["context:read"],
        playbooks: null,
        lastUsedAt: null,
        createdBy: "local user",
      });
      expect(listed!.preview).toMatch(/^ace_[a-z2-7]{13}_…[a-z2-7]{4}$/);
      const row = await database.db.apiKey.findFirstOrThrow({});
      const secretPart = created.secret.split("_")[2]!;
      expect(JSON.stringify(row)).not.toContain(secretPart);
      expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    });

    it("no key is a 401 that says how to get one", async () => {
      const response = await contextRequest("support");
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await errorOf(response)).message).toMatch(/needs an API key: send Authorization: Bearer <key>.*Settings → API keys/);
      expect((await contextRequest("support", "not-a-key")).status).toBe(401);
    });

    it("a key with the scope and the playbook gets the context, and its last use is recorded", async () => {
      const created = await key(["context:read"]);
      const response = await contextRequest("support", created.secret);
      expect(response.status).toBe(200);
      expect((await admin.apiKeys.list())[0]!.lastUsedAt).toBeInstanceOf(Date);
    });

    it("a key without the route's scope gets a 403 naming the scope", async () => {
      const created = await key(["traces:write"]);
      const response = await contextRequest("support", created.secret);
      expect(response.status).toBe(403);
      expect((await errorOf(response)).message).toMatch(/does not have the scope "context:read" this route needs \(it has: traces:write\)/);
    });

    it("a key for other playbooks gets a 403 naming the playbook, and nothing is stored", async () => {
      const created = await key(["context:read", "traces:write"], { playbooks: [otherId] });
      expect((await contextRequest("other", created.secret)).status).toBe(200);
      const refused = await contextRequest("support", created.secret);
      expect(refused.status).toBe(403);
      expect((await errorOf(refused)).message).toMatch(/may not touch the playbook "support"/);
      const batch = await tracesRequest(
        {
          traces: [
            { playbook: "other", task: "ok" },
            { playbook: "support", task: "not mine" },
          ],
        },
        created.secret,
      );
      expect(batch.status).toBe(403);
      expect(await database.db.trace.count()).toBe(0);
      expect((await tracesRequest({ playbook: "other", task: "ok" }, created.secret)).status).toBe(201);
    });

    it("a revoked or expired key gets a 401 that says so; revoking is audited", async () => {
      const created = await key(["context:read"]);
      await admin.apiKeys.revoke({ keyId: created.id });
      const revoked = await contextRequest("support", created.secret);
      expect(revoked.status).toBe(401);
      expect((await errorOf(revoked)).message).toMatch(/was revoked on \d{4}-\d{2}-\d{2}/);
      const expiring = await key(["context:read"], { expiresInDays: 1 });
      await database.db.apiKey.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await errorOf(await contextRequest("support", expiring.secret))).message).toMatch(/expired on/);
      const actions = await database.db.auditEntry.findMany({
        where: { action: { startsWith: "apikey." } },
        select: { action: true, targetLabel: true },
      });
      expect(actions.map((entry) => entry.action).sort()).toEqual(["apikey.create", "apikey.create", "apikey.revoke"]);
      const denied = await database.db.auditEntry.count({ where: { action: "access.denied", actorKind: "apikey" } });
      expect(denied).toBe(2);
    });

    it("a key past its limit gets 429 with Retry-After", async () => {
      const created = await key(["context:read"], { rateLimitPerMinute: 3 });
      for (let i = 0; i < 3; i++) expect((await contextRequest("support", created.secret)).status).toBe(200);
      const limited = await contextRequest("support", created.secret);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect((await errorOf(limited)).message).toMatch(/more than 3 requests this minute/);
    });

    it("a key revoked through this instance is refused at once, though it was just used", async () => {
      const created = await key(["context:read"]);
      expect((await contextRequest("support", created.secret)).status).toBe(200);
      await admin.apiKeys.revoke({ keyId: created.id });
      const revoked = await contextRequest("support", created.secret);
      expect(revoked.status).toBe(401);
      expect((await errorOf(revoked)).message).toMatch(/was revoked on/);
    });

    it("a key revoked through another instance is refused within VERIFIED_KEY_TTL_MS; expiry is checked on every request", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        const created = await key(["context:read"]);
        expect((await contextRequest("support", created.secret)).status).toBe(200);
        // Another instance (or the CLI) revokes it: this process is not told.
        await database.db.apiKey.update({ where: { id: created.id }, data: { revokedAt: new Date() } });
        expect((await contextRequest("support", created.secret)).status).toBe(200);
        vi.advanceTimersByTime(VERIFIED_KEY_TTL_MS);
        const revoked = await contextRequest("support", created.secret);
        expect(revoked.status).toBe(401);
        expect((await errorOf(revoked)).message).toMatch(/was revoked on/);

        const expiring = await key(["context:read"], { expiresInDays: 1 });
        await database.db.apiKey.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() + 1_000) } });
        expect((await contextRequest("support", expiring.secret)).status).toBe(200);
        vi.advanceTimersByTime(1_000);
        const expired = await contextRequest("support", expiring.secret);
        expect(expired.status).toBe(401);
        expect((await errorOf(expired)).message).toMatch(/expired on/);
      } finally {
        vi.useRealTimers();
      }
    });

    it("a key's requests are counted in leases: what other instances counted is seen once the lease is used up", async () => {
      const created = await key(["context:read"], { rateLimitPerMinute: 100 }); // leases of 2
      const counter = { key: `api-key:${created.id}` };
      expect((await contextRequest("support", created.secret)).status).toBe(200);
      expect((await database.db.rateLimit.findUnique({ where: counter }))?.count).toBe(2);
      // Other instances use up the rest of the minute.
      await database.db.rateLimit.update({ where: counter, data: { count: 100 } });
      expect((await contextRequest("support", created.secret)).status).toBe(200);
      const limited = await contextRequest("support", created.secret);
      expect(limited.status).toBe(429);
      expect((await errorOf(limited)).message).toMatch(/more than 100 requests this minute/);
      expect((await contextRequest("support", created.secret)).status).toBe(429);
      expect((await database.db.rateLimit.findUnique({ where: counter }))?.count).toBe(102);
      const used = await database.db.apiKey.findUnique({ where: { id: created.id }, select: { lastUsedAt: true } });
      expect(used?.lastUsedAt).not.toBeNull();
    });

    it("keys are created for playbooks that exist, by admins only", async () => {
      await expectAppError(
        key(["context:read"], { playbooks: ["00000000-0000-4000-8000-000000000000"] }),
        "NOT_FOUND",
        /No playbook has the id/,
      );
      await expectAppError(
        callerAs(database.db, "curator").apiKeys.create({ name: "x", scopes: ["mcp"], playbooks: "all" }),
        "FORBIDDEN",
        /an admin/,
      );
    });

    it("an admin-scoped key may use the studio's own API (the CLI against a running server); others may not", async () => {
      const { authenticate } = await import("@/server/auth/authenticate");
      const adminKey = await key(["admin"], { playbooks: [supportId] });
      const agentKey = await key(["context:read"]);
      const asAdmin = await authenticate(database.db, new Headers({ authorization: `Bearer ${adminKey.secret}` }));
      // Restricted to one playbook, it lists the keys within that playbook only: not the all-playbook agent key.
      const listed = await callerAs(database.db, asAdmin.principal).apiKeys.list();
      expect(listed.map((listedKey) => listedKey.id)).toEqual([adminKey.id]);
      const asAgent = await authenticate(database.db, new Headers({ authorization: `Bearer ${agentKey.secret}` }));
      await expectAppError(callerAs(database.db, asAgent.principal).playbook.list(), "FORBIDDEN", /has no admin scope/);
    });
  });
});
