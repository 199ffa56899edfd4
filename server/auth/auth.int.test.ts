// Accounts against embedded PGlite and PostgreSQL: sign-in and sessions, revocation, the first
// admin, invites, roles, the ACE_AUTH table and the loopback rule, login limits, the audit entries.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TRPCError } from "@trpc/server";
import { z, ZodError } from "zod";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs, contextAs } from "@/server/trpc/callers";
import { createCaller } from "@/server/trpc/root";
import { authenticate } from "./authenticate";
import { loadAuthSettings, setAuthSettings, type AuthSettings } from "./config";
import { SESSION_COOKIE } from "./cookies";
import { PEER_HEADER, sealPeer } from "./peer";
import { SIGN_IN_FAILURES_PER_ACCOUNT } from "./rate-limit";
import { readRequestInfo } from "./request";
import { addSetupToken } from "./service";
import { dropOldAuditIps } from "@/server/audit/service";

const PASSWORD = "correct horse battery staple";

/** Headers of a request as the stamped HTTP server sees it. */
function received(peer: { remote?: string; listen?: string; forwarded?: boolean } = {}, extra: Record<string, string> = {}): Headers {
  return new Headers({
    host: "127.0.0.1:3000",
    [PEER_HEADER]: sealPeer({ remote: peer.remote ?? "127.0.0.1", listen: peer.listen ?? "127.0.0.1", forwarded: peer.forwarded ?? false }),
    ...extra,
  });
}

function cookieOf(headers: Headers): string {
  const value = headers.get("set-cookie") ?? "";
  const match = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(value);
  if (!match) throw new Error(`no session cookie in ${value}`);
  return `${SESSION_COOKIE}=${match[1]}`;
}

describe.each(testEngines())("accounts on %s", (engine) => {
  let database: TestDatabase;
  let settings: AuthSettings;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(async () => {
    setAuthSettings(undefined);
    await database?.close();
  });
  beforeEach(async () => {
    await database.reset();
    settings = loadAuthSettings({});
    setAuthSettings(settings);
  });

  /** A caller for a request with these headers, as the HTTP handler builds it; its cookies land in `resHeaders`. */
  async function httpCaller(headers: Headers) {
    const auth = await authenticate(database.db, headers, { settings });
    const resHeaders = new Headers();
    return { caller: createCaller(contextAs(database.db, auth.principal, { request: auth.request, resHeaders })), resHeaders, auth };
  }

  async function firstAdmin(email = "ada@example.com") {
    const { caller, resHeaders } = await httpCaller(received());
    await caller.auth.setup({ email, name: "Ada", password: PASSWORD });
    return { cookie: cookieOf(resHeaders) };
  }

  async function signIn(email: string, password = PASSWORD, peer: { remote?: string } = {}) {
    const { caller, resHeaders } = await httpCaller(received(peer));
    const user = await caller.auth.signIn({ email, password });
    return { user, cookie: cookieOf(resHeaders), setCookie: resHeaders.get("set-cookie") ?? "" };
  }

  async function as(cookie: string) {
    return httpCaller(received({}, { cookie }));
  }

  async function auditActions() {
    const rows = await database.db.auditEntry.findMany({
      orderBy: { createdAt: "asc" },
      select: { action: true, actorName: true, targetLabel: true },
    });
    return rows;
  }

  describe("laptop mode and the first admin", () => {
    it("a loopback request with no account acts as the local admin; the first admin ends that", async () => {
      const before = await authenticate(database.db, received(), { settings });
      expect(before.principal).toEqual({ kind: "local", name: "local user" });
      expect(before.localMode).toBe(true);

      const { cookie } = await firstAdmin();
      const anonymous = await authenticate(database.db, received(), { settings });
      expect(anonymous.principal.kind).toBe("anonymous");
      expect(anonymous.gate).toBe("sign-in");
      const signedIn = await authenticate(database.db, received({}, { cookie }), { settings });
      expect(signedIn.principal).toMatchObject({ kind: "user", email: "ada@example.com", role: "admin" });
      expect(await auditActions()).toEqual([{ action: "user.setup", actorName: "local user", targetLabel: "ada@example.com" }]);
    });

    it("a proxied request (X-Forwarded-For) is not local: it gets the first-admin page and needs the setup token", async () => {
      const headers = received({ forwarded: true }, { "x-forwarded-for": "198.51.100.7" });
      const { caller, auth } = await httpCaller(headers);
      expect(auth.principal.kind).toBe("anonymous");
      expect(auth.gate).toBe("first-admin");
      await expectAppError(caller.auth.setup({ email: "eve@example.com", password: PASSWORD }), "FORBIDDEN", /setup token/);
      await expectAppError(
        caller.auth.setup({ email: "eve@example.com", password: PASSWORD, setupToken: "wrong-token" }),
        "FORBIDDEN",
        /not right/,
      );
      await addSetupToken(database.db, "s".repeat(52));
      const admin = await caller.auth.setup({ email: "ops@example.com", password: PASSWORD, setupToken: "s".repeat(52) });
      expect(admin.role).toBe("admin");
      expect(await database.db.setupToken.count()).toBe(0);
      // One-time: the token is gone, and a second first admin is refused whoever asks.
      await expectAppError(
        caller.auth.setup({ email: "eve@example.com", password: PASSWORD, setupToken: "s".repeat(52) }),
        "CONFLICT",
        /exists already\. Sign in instead/,
      );
      const local = await httpCaller(received());
      await expectAppError(local.caller.auth.setup({ email: "eve@example.com", password: PASSWORD }), "CONFLICT", /exists already/);
    });

    it("a server listening on every interface requires sign-in even for this computer", async () => {
      const auth = await authenticate(database.db, received({ listen: "::" }), { settings });
      expect(auth.principal.kind).toBe("anonymous");
      expect(auth.gate).toBe("first-admin");
    });

    it("ACE_AUTH=on requires the first-admin page on loopback too; ACE_AUTH=off never asks", async () => {
      const on = loadAuthSettings({ ACE_AUTH: "on" });
      expect((await authenticate(database.db, received(), { settings: on })).principal.kind).toBe("anonymous");
      await firstAdmin();
      const off = loadAuthSettings({ ACE_AUTH: "off" });
      expect((await authenticate(database.db, received(), { settings: off })).principal.kind).toBe("local");
      expect((await authenticate(database.db, received({ listen: "0.0.0.0" }), { settings: off })).principal.kind).toBe("anonymous");
    });

    it("the first account must be an admin, and inviting waits for it", async () => {
      const local = callerAs(database.db, "local");
      await expectAppError(local.users.invite({ email: "bob@example.com", role: "curator" }), "CONFLICT", /your own admin account first/);
      await expectAppError(
        local.users.create({ email: "bob@example.com", role: "viewer", password: PASSWORD }),
        "CONFLICT",
        /first account must be an admin/,
      );
    });
  });

  describe("signing in", () => {
    beforeEach(async () => {
      await firstAdmin();
    });

    it("sets an HttpOnly, SameSite=Lax session cookie that authenticates later requests; Secure behind HTTPS", async () => {
      const { setCookie, cookie } = await signIn("ada@example.com");
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Lax/);
      expect(setCookie).not.toMatch(/Secure/);
      const session = await (await as(cookie)).caller.auth.session();
      expect(session).toMatchObject({ gate: "open", identity: { kind: "user", email: "ada@example.com", role: "admin" } });
      const { caller, resHeaders } = await httpCaller(received({}, { "x-forwarded-proto": "https" }));
      await caller.auth.signIn({ email: "ADA@example.com", password: PASSWORD });
      expect(resHeaders.get("set-cookie")).toMatch(/Secure/);
    });

    it("refuses a wrong password or an unknown email with one message, and audits it", async () => {
      const { caller } = await httpCaller(received());
      await expectAppError(
        caller.auth.signIn({ email: "ada@example.com", password: "wrong password" }),
        "UNAUTHORIZED",
        /email or the password is wrong/,
      );
      await expectAppError(
        caller.auth.signIn({ email: "nobody@example.com", password: "wrong password" }),
        "UNAUTHORIZED",
        /email or the password is wrong/,
      );
      const failures = (await auditActions()).filter((entry) => entry.action === "session.sign_in_failed");
      expect(failures.map((entry) => entry.actorName)).toEqual(["ada@example.com", "nobody@example.com"]);
    });

    it(`locks an account after ${SIGN_IN_FAILURES_PER_ACCOUNT} failures, even for the right password, and says when to retry`, async () => {
      const { caller } = await httpCaller(received({ remote: "127.0.0.2" }));
      for (let i = 0; i < SIGN_IN_FAILURES_PER_ACCOUNT; i++) {
        await expectAppError(caller.auth.signIn({ email: "ada@example.com", password: `wrong ${i}` }), "UNAUTHORIZED", /wrong/);
      }
      await expectAppError(
        caller.auth.signIn({ email: "ada@example.com", password: PASSWORD }),
        "TOO_MANY_REQUESTS",
        /Too many failed sign-ins for this account\. Try again in 1[45] minutes/,
      );
    });

    it("limits failures per address across accounts", async () => {
      const { caller } = await httpCaller(received({ remote: "127.0.0.9" }));
      for (let i = 0; i < 30; i++) {
        await expectAppError(caller.auth.signIn({ email: `guess${i}@example.com`, password: "nope nope nope" }), "UNAUTHORIZED", /wrong/);
      }
      await expectAppError(
        caller.auth.signIn({ email: "ada@example.com", password: PASSWORD }),
        "TOO_MANY_REQUESTS",
        /from your network address/,
      );
      // Another address is not affected.
      expect((await signIn("ada@example.com", PASSWORD, { remote: "127.0.0.10" })).user.email).toBe("ada@example.com");
    });

    it("signing out ends the session and clears the cookie", async () => {
      const { cookie } = await signIn("ada@example.com");
      const { caller, resHeaders } = await as(cookie);
      await caller.auth.signOut();
      expect(resHeaders.get("set-cookie")).toMatch(/Max-Age=0/);
      expect((await authenticate(database.db, received({}, { cookie }), { settings })).principal.kind).toBe("anonymous");
    });
  });

  describe("users, roles and revocation", () => {
    let adminCookie: string;

    beforeEach(async () => {
      ({ cookie: adminCookie } = await firstAdmin());
    });

    async function invite(email: string, role: "viewer" | "curator" | "admin") {
      const admin = (await as(adminCookie)).caller;
      const link = await admin.users.invite({ email, name: email.split("@")[0], role });
      const token = link.path.replace("/invite/", "");
      const { caller, resHeaders } = await httpCaller(received());
      expect(await caller.auth.inviteInfo({ token })).toEqual({ email, name: email.split("@")[0], reset: false });
      await caller.auth.acceptInvite({ token, password: PASSWORD });
      return { userId: link.userId, token, cookie: cookieOf(resHeaders) };
    }

    it("an invite link works once and signs the person in with their role", async () => {
      const bob = await invite("bob@example.com", "curator");
      const session = await (await as(bob.cookie)).caller.auth.session();
      expect(session.identity).toMatchObject({ kind: "user", email: "bob@example.com", role: "curator" });
      const { caller } = await httpCaller(received());
      await expectAppError(
        caller.auth.acceptInvite({ token: bob.token, password: PASSWORD }),
        "NOT_FOUND",
        /used, replaced by a newer link, or it expired/,
      );
    });

    it("roles hold on every router: a viewer reads, a curator curates, only an admin administers", async () => {
      const viewer = (await as((await invite("val@example.com", "viewer")).cookie)).caller;
      const curator = (await as((await invite("cur@example.com", "curator")).cookie)).caller;
      const admin = (await as(adminCookie)).caller;

      const { playbookId } = await curator.playbook.import({
        content: SMALL_PLAYBOOK,
        format: "ace",
        target: { kind: "new", name: "support" },
      });
      expect(await viewer.playbook.list()).toHaveLength(1);
      expect((await viewer.history.versions({ playbookId })).items.length).toBeGreaterThan(0);
      await expectAppError(
        viewer.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "mine" } }),
        "FORBIDDEN",
        /Your role is viewer; this needs a curator/,
      );
      await expectAppError(
        viewer.delta.propose({
          playbookId,
          operations: [{ operation: { type: "add", section: "strategies_and_insights", content: "x" } }],
        }),
        "FORBIDDEN",
        /viewer/,
      );
      await expectAppError(
        curator.playbook.updateSettings({ playbookId, settings: { autoApply: true } }),
        "FORBIDDEN",
        /Your role is curator; this needs an admin/,
      );
      await expectAppError(curator.users.list(), "FORBIDDEN", /an admin/);
      await expectAppError(curator.apiKeys.list(), "FORBIDDEN", /an admin/);
      await expectAppError(curator.audit.list({}), "FORBIDDEN", /an admin/);
      await admin.playbook.updateSettings({ playbookId, settings: { autoApply: true } });
      // Version history names the real person.
      const versions = await viewer.history.versions({ playbookId });
      expect(versions.items.map((version) => version.author)).toContain("cur");
      // A refused change is audited.
      expect((await auditActions()).filter((entry) => entry.action === "access.denied").map((entry) => entry.actorName)).toEqual(
        expect.arrayContaining(["val@example.com", "cur@example.com"]),
      );
    });

    it("changing a role is audited with before and after; the last admin cannot be demoted, disabled or deleted", async () => {
      const bob = await invite("bob@example.com", "viewer");
      const admin = (await as(adminCookie)).caller;
      await admin.users.setRole({ userId: bob.userId, role: "curator" });
      const entry = await database.db.auditEntry.findFirst({
        where: { action: "user.role" },
        select: { actorName: true, targetLabel: true, summary: true },
      });
      expect(entry).toEqual({
        actorName: "ada@example.com",
        targetLabel: "bob@example.com",
        summary: { before: { role: "viewer" }, after: { role: "curator" } },
      });
      const ada = (await admin.users.list()).find((user) => user.email === "ada@example.com");
      await expectAppError(admin.users.setRole({ userId: ada!.id, role: "viewer" }), "CONFLICT", /last active admin/);
      await expectAppError(admin.users.disable({ userId: ada!.id }), "CONFLICT", /your own account/);
      await expectAppError(callerAs(database.db, "local").users.delete({ userId: ada!.id }), "CONFLICT", /last active admin/);
    });

    it("revoking sessions, disabling and changing a password each end sessions at once", async () => {
      const bob = await invite("bob@example.com", "curator");
      const admin = (await as(adminCookie)).caller;
      const stillIn = () =>
        authenticate(database.db, received({}, { cookie: bob.cookie }), { settings }).then((auth) => auth.principal.kind);
      expect(await stillIn()).toBe("user");

      expect(await admin.users.endSessions({ userId: bob.userId })).toEqual({ ended: 1 });
      expect(await stillIn()).toBe("anonymous");

      const again = await signIn("bob@example.com");
      await admin.users.disable({ userId: bob.userId });
      expect((await authenticate(database.db, received({}, { cookie: again.cookie }), { settings })).principal.kind).toBe("anonymous");
      const { caller } = await httpCaller(received());
      await expectAppError(caller.auth.signIn({ email: "bob@example.com", password: PASSWORD }), "FORBIDDEN", /disabled\. Ask an admin/);
      await admin.users.enable({ userId: bob.userId });

      const first = await signIn("bob@example.com");
      const second = await signIn("bob@example.com");
      const own = (await as(first.cookie)).caller;
      await expectAppError(
        own.auth.changePassword({ currentPassword: "not it at all", newPassword: "a brand new password" }),
        "BAD_REQUEST",
        /current password is not right/,
      );
      await own.auth.changePassword({ currentPassword: PASSWORD, newPassword: "a brand new password" });
      expect((await authenticate(database.db, received({}, { cookie: first.cookie }), { settings })).principal.kind).toBe("user");
      expect((await authenticate(database.db, received({}, { cookie: second.cookie }), { settings })).principal.kind).toBe("anonymous");
      expect((await signIn("bob@example.com", "a brand new password")).user.email).toBe("bob@example.com");
    });

    it("a common password is refused wherever a password is set, saying why at the field; nothing changes", async () => {
      const COMMON = /one of the most common passwords/;
      const { caller: stranger } = await httpCaller(received());
      const setup = stranger.auth.setup({ email: "eve@example.com", password: "password12", setupToken: "x" });
      await expect(setup).rejects.toSatisfy((error: unknown) => {
        const cause = (error as { cause?: unknown }).cause;
        expect((error as TRPCError).code).toBe("BAD_REQUEST");
        expect(cause).toBeInstanceOf(ZodError);
        expect(z.flattenError(cause as ZodError).fieldErrors).toEqual({
          password: [expect.stringMatching(/one of the most common passwords/)],
        });
        return true;
      });
      const admin = (await as(adminCookie)).caller;
      const link = await admin.users.invite({ email: "bob@example.com", role: "curator" });
      const token = link.path.replace("/invite/", "");
      // Case and spaces do not make a common password uncommon.
      for (const password of ["password12", "Password12", "pass word 12", "qwertyuiop", "1234567890"]) {
        await expectAppError(stranger.auth.acceptInvite({ token, password }), "BAD_REQUEST", COMMON);
      }
      await expectAppError(
        admin.users.create({ email: "cy@example.com", role: "viewer", password: "iloveyou12" }),
        "BAD_REQUEST",
        /one of the most common passwords/,
      );
      await expectAppError(
        admin.auth.changePassword({ currentPassword: PASSWORD, newPassword: "letmein123" }),
        "BAD_REQUEST",
        /one of the most common passwords/,
      );
      // The invite still works, and a password of a few unrelated words is accepted.
      await stranger.auth.acceptInvite({ token, password: "violet anchor tundra" });
      expect((await signIn("bob@example.com", "violet anchor tundra")).user.email).toBe("bob@example.com");
      expect(await database.db.user.count()).toBe(2);
      expect((await signIn("ada@example.com")).user.email).toBe("ada@example.com");
    });

    it("an admin's new link resets a password and ends the old sessions", async () => {
      const bob = await invite("bob@example.com", "viewer");
      const admin = (await as(adminCookie)).caller;
      const link = await admin.users.reinvite({ userId: bob.userId });
      const token = link.path.replace("/invite/", "");
      const { caller } = await httpCaller(received());
      expect((await caller.auth.inviteInfo({ token })).reset).toBe(true);
      await caller.auth.acceptInvite({ token, password: "another long password" });
      expect((await authenticate(database.db, received({}, { cookie: bob.cookie }), { settings })).principal.kind).toBe("anonymous");
    });

    it("deleting a user keeps their name in the audit log", async () => {
      const bob = await invite("bob@example.com", "viewer");
      await (await as(adminCookie)).caller.users.delete({ userId: bob.userId });
      expect(await database.db.user.count({ where: { email: "bob@example.com" } })).toBe(0);
      const actions = await auditActions();
      expect(actions.filter((entry) => entry.targetLabel === "bob@example.com").map((entry) => entry.action)).toEqual([
        "user.invite",
        "user.invite_accept",
        "user.delete",
      ]);
    });
  });

  describe("the audit log", () => {
    it("is append-only: the database refuses edits and deletes, but lets old IP addresses go", async () => {
      await firstAdmin();
      const [entry] = await database.db.auditEntry.findMany({ select: { id: true } });
      await expect(database.db.auditEntry.update({ where: { id: entry!.id }, data: { action: "nothing.happened" } })).rejects.toThrow(
        /append-only/,
      );
      await expect(database.db.auditEntry.delete({ where: { id: entry!.id } })).rejects.toThrow(/append-only/);
      await expect(database.db.auditEntry.update({ where: { id: entry!.id }, data: { ip: "10.1.2.3" } })).rejects.toThrow(/append-only/);
      // An entry from 100 days ago (written with the trigger off, as no path of the app can).
      await database.db.$executeRaw`ALTER TABLE "AuditEntry" DISABLE TRIGGER USER`;
      await database.db.auditEntry.update({
        where: { id: entry!.id },
        data: { ip: "10.1.2.3", createdAt: new Date(Date.now() - 100 * 86_400_000) },
      });
      await database.db.$executeRaw`ALTER TABLE "AuditEntry" ENABLE TRIGGER USER`;
      expect(await dropOldAuditIps(database.db, 90)).toBe(1);
      expect((await database.db.auditEntry.findUnique({ where: { id: entry!.id }, select: { ip: true } }))?.ip).toBeNull();
    });

    it("lists newest first with filters by who, action and time, and pages", async () => {
      await firstAdmin();
      const admin = callerAs(database.db, "local");
      for (const email of ["a@example.com", "b@example.com", "c@example.com"]) await admin.users.invite({ email, role: "viewer" });
      const all = await admin.audit.list({});
      expect(all.entries.map((entry) => entry.action)).toEqual(["user.invite", "user.invite", "user.invite", "user.setup"]);
      expect((await admin.audit.list({ action: "user.setup" })).entries).toHaveLength(1);
      expect((await admin.audit.list({ action: "user." })).entries).toHaveLength(4);
      expect((await admin.audit.list({ who: "LOCAL" })).entries).toHaveLength(4);
      expect((await admin.audit.list({ from: new Date(Date.now() + 60_000) })).entries).toHaveLength(0);
      const page = await admin.audit.list({ limit: 3 });
      expect(page.entries).toHaveLength(3);
      const rest = await admin.audit.list({ limit: 3, cursor: page.nextCursor });
      expect(rest.entries.map((entry) => entry.action)).toEqual(["user.setup"]);
      expect(rest.nextCursor).toBeNull();
    });
  });

  it("requests carry their address into the audit entry and the session", async () => {
    const headers = received({ remote: "127.0.0.1", forwarded: true }, { "x-forwarded-for": "198.51.100.7" });
    const trusted = loadAuthSettings({ ACE_TRUSTED_PROXIES: "127.0.0.1" });
    setAuthSettings(trusted);
    expect(readRequestInfo(headers, trusted).ip).toBe("198.51.100.7");
    await addSetupToken(database.db, "t".repeat(52));
    const auth = await authenticate(database.db, headers, { settings: trusted });
    const caller = createCaller(contextAs(database.db, auth.principal, { request: auth.request }));
    await caller.auth.setup({ email: "ops@example.com", password: PASSWORD, setupToken: "t".repeat(52) });
    expect(await database.db.auditEntry.findFirst({ select: { ip: true, requestId: true } })).toEqual({
      ip: "198.51.100.7",
      requestId: auth.request.id,
    });
    expect(await database.db.session.findFirst({ select: { ip: true } })).toEqual({ ip: "198.51.100.7" });
  });
});
