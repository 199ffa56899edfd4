// The probe that found keys outliving their creator, over HTTP against a running app instance
// (server/testing/app-server.ts) on embedded PGlite and on PostgreSQL: an admin signs in and creates
// an admin key; demoted, their key's admin calls are refused (403); disabled, their key is revoked
// (401 on the studio's API and on /api/v1, saying why), and the audit log holds the revocation.
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startAppInstance, type AppInstance } from "@/server/testing/app-instance";
import { testEngines } from "@/server/testing/db";

const PASSWORD = "correct horse battery staple";

function client(instance: AppInstance, headers: Record<string, string> = {}) {
  return instance.trpcWith(headers);
}

/** Signs in through the studio's API as a browser does; the session cookie to send back. */
async function signIn(instance: AppInstance, email: string): Promise<Record<string, string>> {
  const response = await fetch(`${instance.url}/api/trpc/auth.signIn`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(superjson.serialize({ email, password: PASSWORD })),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const cookie = response.headers.getSetCookie().map((value) => value.split(";", 1)[0]!);
  expect(cookie).toHaveLength(1);
  return { cookie: cookie[0]! };
}

/** users.list with the key, as the CLI sends it to a running server: the status and the refusal's message. */
async function listUsersWithKey(instance: AppInstance, secret: string): Promise<{ status: number; message: string | null }> {
  const response = await fetch(`${instance.url}/api/trpc/users.list`, { headers: { authorization: `Bearer ${secret}` } });
  const body = (await response.json()) as { error?: { json: { message: string } } };
  return { status: response.status, message: body.error?.json.message ?? null };
}

describe.each(testEngines())("an admin's key after the admin is demoted, then disabled, over HTTP on %s", (engine) => {
  let instance: AppInstance | undefined;

  beforeAll(async () => {
    instance = await startAppInstance(engine, { postgresUrl: inject("testPostgresUrl") });
  }, 180_000);

  afterAll(async () => {
    await instance?.drop();
  });

  it("loses its admin powers with the demotion, and is revoked with the account, audited", async () => {
    const server = instance!;
    // No account yet: the local operator creates the first admin, which ends the no-sign-in mode.
    const ada = await client(server).users.create.mutate({ email: "ada@example.com", name: "Ada", role: "admin", password: PASSWORD });
    const asAda = client(server, await signIn(server, "ada@example.com"));
    await asAda.users.create.mutate({ email: "root@example.com", name: "Root", role: "admin", password: PASSWORD });
    const asRoot = client(server, await signIn(server, "root@example.com"));
    const key = await asAda.apiKeys.create.mutate({ name: "ada's admin key", scopes: ["admin", "context:read"], playbooks: "all" });
    expect(await listUsersWithKey(server, key.secret)).toEqual({ status: 200, message: null });
    const listed = (await asRoot.apiKeys.list.query()).find((candidate) => candidate.id === key.id);
    expect(listed?.creator).toMatchObject({ kind: "user", userId: ada.userId, label: "Ada", admin: true });

    await asRoot.users.setRole.mutate({ userId: ada.userId, role: "curator" });
    const demoted = await listUsersWithKey(server, key.secret);
    expect(demoted.status).toBe(403);
    expect(demoted.message).toMatch(/acts for ada@example\.com, who is no longer an admin, so its admin scope is withheld/);

    await asRoot.users.disable.mutate({ userId: ada.userId });
    const disabled = await listUsersWithKey(server, key.secret);
    expect(disabled.status).toBe(401);
    expect(disabled.message).toMatch(
      /API key "ada's admin key" was revoked on .* \(creator disabled: keys end with their creator's account\)/,
    );
    const agentCall = await fetch(`${server.url}/api/v1/playbooks/anything/context`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    expect(agentCall.status).toBe(401);
    expect(((await agentCall.json()) as { error: { message: string } }).error.message).toMatch(/\(creator disabled/);

    const { entries } = await asRoot.audit.list.query({ action: "apikey.revoke" });
    expect(entries.map((entry) => ({ target: entry.targetId, actor: entry.actorName, after: entry.after }))).toEqual([
      { target: key.id, actor: "root@example.com", after: { status: "revoked", reason: "creator disabled" } },
    ]);
  });
});
