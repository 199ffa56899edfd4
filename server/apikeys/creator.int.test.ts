// API keys are bound by their creator, on embedded PGlite and PostgreSQL: a user's key holds admin
// powers only while that user is an admin, ends with their account (audited), a key made by a key
// takes that key's creator, the local operator's keys are shown as such, and an admin can hand a key
// to another admin.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { authenticate } from "@/server/auth/authenticate";
import { loadAuthSettings, setAuthSettings } from "@/server/auth/config";
import type { Principal } from "@/server/auth/principal";
import type { SignedIn } from "@/server/auth/schemas";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import { creatorLabel, type ApiScope } from "./schemas";
import { VERIFIED_KEY_TTL_MS } from "./service";

const PASSWORD = "correct horse battery staple";

describe.each(testEngines())("API keys bound by their creator on %s", (engine) => {
  let database: TestDatabase;
  let local: ReturnType<typeof callerAs>;
  let ada: SignedIn;
  let bob: SignedIn;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(async () => {
    setAuthSettings(undefined);
    await database?.close();
  });
  beforeEach(async () => {
    await database.reset();
    setAuthSettings(loadAuthSettings({}));
    local = callerAs(database.db, "local");
    ada = await local.users.create({ email: "ada@example.com", name: "Ada", role: "admin", password: PASSWORD });
    bob = await local.users.create({ email: "bob@example.com", name: "Bob", role: "admin", password: PASSWORD });
  });

  const asUser = (user: SignedIn): Principal => ({ kind: "user", ...user, sessionId: null });

  const createKey = (as: Principal | "local", name: string, scopes: ApiScope[] = ["admin"]) =>
    callerAs(database.db, as).apiKeys.create({ name, scopes, playbooks: "all" });

  /** The principal a request with this key acts for, or why it was refused. */
  async function keyPrincipal(secret: string) {
    const auth = await authenticate(database.db, new Headers({ authorization: `Bearer ${secret}` }));
    return { principal: auth.principal, refusal: auth.credentialProblem?.message ?? null };
  }

  async function listed(keyId: string) {
    const key = (await local.apiKeys.list()).find((candidate) => candidate.id === keyId);
    if (!key) throw new Error(`key ${keyId} is not listed`);
    return key;
  }

  it("records the user who made a key, and lists it under their name", async () => {
    const key = await createKey(asUser(ada), "deploy bot");
    const row = await database.db.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row).toMatchObject({ creatorKind: "user", creatorId: ada.userId, ownerKind: "user", ownerUserId: ada.userId });
    const item = await listed(key.id);
    expect(item.creator).toEqual({ kind: "user", userId: ada.userId, label: "Ada", admin: true, gone: false });
    expect(creatorLabel(item.creator)).toBe("Ada");
  });

  it("demoting the creator withholds the key's admin powers at once, and promoting them back restores them", async () => {
    const key = await createKey(asUser(ada), "deploy bot", ["admin", "context:read"]);
    const before = await keyPrincipal(key.secret);
    await expect(callerAs(database.db, before.principal).users.list()).resolves.toHaveLength(2);

    await callerAs(database.db, asUser(bob)).users.setRole({ userId: ada.userId, role: "curator" });
    const demoted = await keyPrincipal(key.secret);
    expect(demoted.principal).toMatchObject({ kind: "apikey", scopes: ["context:read"] });
    await expectAppError(
      callerAs(database.db, demoted.principal).users.list(),
      "FORBIDDEN",
      /acts for ada@example\.com, who is no longer an admin, so its admin scope is withheld.*transfer the key/,
    );
    await expectAppError(
      callerAs(database.db, demoted.principal).users.setRole({ userId: ada.userId, role: "admin" }),
      "FORBIDDEN",
      /no longer an admin/,
    );
    expect((await database.db.user.findUniqueOrThrow({ where: { id: ada.userId } })).role).toBe("curator");
    expect((await listed(key.id)).creator).toMatchObject({ kind: "user", admin: false });

    await local.users.setRole({ userId: ada.userId, role: "admin" });
    const restored = await keyPrincipal(key.secret);
    await expect(callerAs(database.db, restored.principal).users.list()).resolves.toHaveLength(2);
  });

  it("a demotion made through another instance takes effect within VERIFIED_KEY_TTL_MS", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const key = await createKey(asUser(ada), "deploy bot");
      expect((await keyPrincipal(key.secret)).principal).toMatchObject({ scopes: ["admin"] });
      // Another instance demotes Ada: this process is not told.
      await database.db.user.update({ where: { id: ada.userId }, data: { role: "viewer" } });
      expect((await keyPrincipal(key.secret)).principal).toMatchObject({ scopes: ["admin"] });
      vi.advanceTimersByTime(VERIFIED_KEY_TTL_MS);
      expect((await keyPrincipal(key.secret)).principal).toMatchObject({ scopes: [] });
    } finally {
      vi.useRealTimers();
    }
  });

  it("disabling the creator revokes their keys with the reason, audited, and enabling them does not bring the keys back", async () => {
    const key = await createKey(asUser(ada), "deploy bot");
    const agent = await createKey(asUser(ada), "support agent", ["context:read"]);
    const other = await createKey(asUser(bob), "bob's bot");
    expect((await keyPrincipal(key.secret)).principal.kind).toBe("apikey"); // now cached

    await callerAs(database.db, asUser(bob)).users.disable({ userId: ada.userId });
    for (const { secret } of [key, agent]) {
      const refused = await keyPrincipal(secret);
      expect(refused.principal.kind).toBe("anonymous");
      expect(refused.refusal).toMatch(/was revoked on \d{4}-\d\d-\d\d \(creator disabled: keys end with their creator's account\)/);
    }
    expect((await keyPrincipal(other.secret)).principal.kind).toBe("apikey");
    expect(await listed(key.id)).toMatchObject({ status: "revoked", revokedReason: "creator disabled" });

    const entries = await database.db.auditEntry.findMany({ where: { action: "apikey.revoke" }, orderBy: { targetLabel: "asc" } });
    expect(entries.map((entry) => [entry.targetLabel, entry.actorName, entry.summary])).toEqual([
      ["deploy bot", "bob@example.com", { before: { status: "active" }, after: { status: "revoked", reason: "creator disabled" } }],
      ["support agent", "bob@example.com", { before: { status: "active" }, after: { status: "revoked", reason: "creator disabled" } }],
    ]);
    const disabled = await database.db.auditEntry.findFirstOrThrow({ where: { action: "user.disable" } });
    expect(disabled.summary).toMatchObject({ after: { keysRevoked: 2 } });

    await local.users.enable({ userId: ada.userId });
    expect((await keyPrincipal(key.secret)).refusal).toMatch(/creator disabled/);
  });

  it("deleting the creator revokes their keys with the reason, and the list still names them", async () => {
    const key = await createKey(asUser(ada), "deploy bot");
    await callerAs(database.db, asUser(bob)).users.delete({ userId: ada.userId });
    expect((await keyPrincipal(key.secret)).refusal).toMatch(/\(creator deleted: keys end with their creator's account\)/);
    const item = await listed(key.id);
    expect(item).toMatchObject({ status: "revoked", revokedReason: "creator deleted" });
    expect(creatorLabel(item.creator)).toBe("ada@example.com (deleted)");
    const entry = await database.db.auditEntry.findFirstOrThrow({ where: { action: "apikey.revoke", targetId: key.id } });
    expect(entry.summary).toMatchObject({ after: { reason: "creator deleted" } });
  });

  it("a key whose creator's account ended without its keys being revoked is refused all the same", async () => {
    const key = await createKey(asUser(ada), "deploy bot");
    // As if the account were disabled at the moment the key was made, before its row was written.
    await database.db.user.update({ where: { id: ada.userId }, data: { disabledAt: new Date() } });
    const refused = await keyPrincipal(key.secret);
    expect(refused.principal.kind).toBe("anonymous");
    expect(refused.refusal).toMatch(/ended with the account of the person who created it \(disabled\)/);
  });

  it("a key made by a key takes that key's creator: it loses admin powers and ends with that user", async () => {
    const parent = await createKey(asUser(ada), "ci admin");
    const { principal } = await keyPrincipal(parent.secret);
    const child = await createKey(principal, "nightly job");
    const row = await database.db.apiKey.findUniqueOrThrow({ where: { id: child.id } });
    expect(row).toMatchObject({ creatorKind: "apikey", creatorId: parent.id, ownerKind: "user", ownerUserId: ada.userId });
    expect(creatorLabel((await listed(child.id)).creator)).toBe('API key "ci admin" (for user Ada)');

    await local.users.setRole({ userId: ada.userId, role: "viewer" });
    await expectAppError(callerAs(database.db, (await keyPrincipal(child.secret)).principal).users.list(), "FORBIDDEN", /ada@example\.com/);
    await local.users.disable({ userId: ada.userId });
    expect((await keyPrincipal(child.secret)).refusal).toMatch(/creator disabled/);
  });

  it("the local operator's keys are shown as such and depend on no account", async () => {
    const key = await createKey("local", "laptop agent");
    const { principal } = await keyPrincipal(key.secret);
    const child = await createKey(principal, "laptop helper");
    expect(creatorLabel((await listed(key.id)).creator)).toBe("local operator");
    expect(creatorLabel((await listed(child.id)).creator)).toBe('API key "laptop agent" (for local operator)');
    await local.users.setRole({ userId: ada.userId, role: "viewer" });
    await local.users.disable({ userId: ada.userId });
    await expect(callerAs(database.db, (await keyPrincipal(child.secret)).principal).users.list()).resolves.toHaveLength(2);
  });

  it("an admin transfers a key to another admin: its powers then follow that admin, and the transfer is audited", async () => {
    const key = await createKey(asUser(ada), "service key");
    await callerAs(database.db, asUser(bob)).apiKeys.transfer({ keyId: key.id, toUserId: bob.userId });
    expect(await listed(key.id)).toMatchObject({
      createdBy: "bob@example.com",
      creator: { kind: "user", userId: bob.userId, label: "Bob" },
    });
    const entry = await database.db.auditEntry.findFirstOrThrow({ where: { action: "apikey.transfer" } });
    expect(entry).toMatchObject({ targetId: key.id, actorName: "bob@example.com" });
    expect(entry.summary).toMatchObject({ before: { creator: "Ada", ownerUserId: ada.userId }, after: { creator: "bob@example.com" } });

    await local.users.disable({ userId: ada.userId });
    await expect(callerAs(database.db, (await keyPrincipal(key.secret)).principal).users.list()).resolves.toHaveLength(2);
    await local.users.create({ email: "root@example.com", role: "admin", password: PASSWORD });
    await local.users.setRole({ userId: bob.userId, role: "curator" });
    await expectAppError(callerAs(database.db, (await keyPrincipal(key.secret)).principal).users.list(), "FORBIDDEN", /bob@example\.com/);
    await local.users.delete({ userId: bob.userId });
    expect(creatorLabel((await listed(key.id)).creator)).toBe("bob@example.com (deleted)");
  });

  it("a key goes only to an active admin, and only while it is not revoked; a refusal changes nothing", async () => {
    const key = await createKey(asUser(ada), "service key");
    const cleo = await local.users.create({ email: "cleo@example.com", name: "Cleo", role: "curator", password: PASSWORD });
    await expectAppError(
      local.apiKeys.transfer({ keyId: key.id, toUserId: cleo.userId }),
      "CONFLICT",
      /cleo@example\.com is a curator; a key can only be transferred to an admin/,
    );
    await local.users.disable({ userId: bob.userId });
    await expectAppError(local.apiKeys.transfer({ keyId: key.id, toUserId: bob.userId }), "CONFLICT", /bob@example\.com is disabled/);
    await expectAppError(
      local.apiKeys.transfer({ keyId: key.id, toUserId: "00000000-0000-4000-8000-000000000000" }),
      "NOT_FOUND",
      /That user was not found/,
    );
    await expectAppError(local.apiKeys.transfer({ keyId: key.id, toUserId: "bob" }), "BAD_REQUEST", /Choose the admin/);
    expect(await database.db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({ ownerUserId: ada.userId });
    await local.apiKeys.revoke({ keyId: key.id });
    await expectAppError(local.apiKeys.transfer({ keyId: key.id, toUserId: ada.userId }), "CONFLICT", /is revoked, so there is nothing/);
    expect(await database.db.auditEntry.count({ where: { action: "apikey.transfer" } })).toBe(0);
    await expectAppError(
      callerAs(database.db, "curator").apiKeys.transfer({ keyId: key.id, toUserId: ada.userId }),
      "FORBIDDEN",
      /an admin/,
    );
  });

  it("a key whose creator is unknown keeps working, is listed as such, and an admin can take it over", async () => {
    const key = await createKey("local", "old key");
    await database.db.apiKey.update({
      where: { id: key.id },
      data: { createdBy: "someone@gone.example", creatorKind: null, creatorId: null, ownerKind: null, ownerUserId: null },
    });
    await expect(callerAs(database.db, (await keyPrincipal(key.secret)).principal).users.list()).resolves.toHaveLength(2);
    expect(creatorLabel((await listed(key.id)).creator)).toBe("creator unknown: transfer or revoke");
    await local.apiKeys.transfer({ keyId: key.id, toUserId: ada.userId });
    expect(creatorLabel((await listed(key.id)).creator)).toBe("Ada");
    const entry = await database.db.auditEntry.findFirstOrThrow({ where: { action: "apikey.transfer" } });
    expect(entry.summary).toMatchObject({ before: { creator: "creator unknown: transfer or revoke", ownerUserId: null } });
  });
});
