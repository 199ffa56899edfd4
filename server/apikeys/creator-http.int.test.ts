// The probe that found keys outliving their creator, over HTTP against a running app instance
// (server/testing/app-server.ts) on embedded PGlite and on PostgreSQL: an admin signs in and creates
// an admin key; demoted, their key's admin calls are refused (403); disabled, their key is revoked
// (401 on the studio's API and on /api/v1, saying why), and the audit log holds the revocation.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import pg from "pg";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { AppRouter } from "@/server/trpc/root";

const PASSWORD = "correct horse battery staple";
const postgresUrl = inject("testPostgresUrl");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function onPostgres(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

interface Instance {
  url: string;
  child: ChildProcess;
  log: string[];
}

async function startInstance(database: { DATABASE_URL: string } | { DATA_DIR: string }): Promise<Instance> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_RUNTIME: "nodejs",
    PORT: String(port),
    HOST: "127.0.0.1",
    ACE_DEMO_SEED: "off",
    ACE_LLM_PROVIDER: "offline",
  };
  delete env.DATABASE_URL;
  delete env.DATA_DIR;
  Object.assign(env, database);
  for (const name of Object.keys(env)) if (name.startsWith("VITEST") || name === "TEST") delete env[name];
  const child = spawn(process.execPath, ["--import", "tsx", "server/testing/app-server.ts"], {
    cwd: process.cwd(),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: string[] = [];
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      log.push(chunk.toString());
      if (chunk.toString().includes(`listening on ${port}`)) resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
    child.once("exit", (code) => reject(new Error(`The app instance stopped (exit ${code}) before serving:\n${log.join("")}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, log };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  const child = instance?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function client(instance: Instance, headers: Record<string, string> = {}) {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${instance.url}/api/trpc`, transformer: superjson, headers })] });
}

/** Signs in through the studio's API as a browser does; the session cookie to send back. */
async function signIn(instance: Instance, email: string): Promise<Record<string, string>> {
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
async function listUsersWithKey(instance: Instance, secret: string): Promise<{ status: number; message: string | null }> {
  const response = await fetch(`${instance.url}/api/trpc/users.list`, { headers: { authorization: `Bearer ${secret}` } });
  const body = (await response.json()) as { error?: { json: { message: string } } };
  return { status: response.status, message: body.error?.json.message ?? null };
}

const engines = [
  {
    engine: "pglite",
    setUp: () => {
      const dataDir = mkdtempSync(join(tmpdir(), "ace-keys-http-"));
      return { database: { DATA_DIR: dataDir }, tearDown: async () => rmSync(dataDir, { recursive: true, force: true }) };
    },
  },
  ...(postgresUrl
    ? [
        {
          engine: "postgres",
          setUp: async () => {
            const name = `ace_test_keys_${Date.now()}_${randomBytes(3).toString("hex")}`;
            const adminUrl = new URL(postgresUrl);
            adminUrl.pathname = "/postgres";
            await onPostgres(adminUrl.toString(), `CREATE DATABASE "${name}"`);
            const url = new URL(adminUrl);
            url.pathname = `/${name}`;
            return {
              database: { DATABASE_URL: url.toString() },
              tearDown: () => onPostgres(adminUrl.toString(), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
            };
          },
        },
      ]
    : []),
];

describe.each(engines)("an admin's key after the admin is demoted, then disabled, over HTTP on $engine", ({ setUp }) => {
  let instance: Instance | undefined;
  let tearDown: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const prepared = await setUp();
    tearDown = prepared.tearDown;
    instance = await startInstance(prepared.database);
  }, 180_000);

  afterAll(async () => {
    await stopInstance(instance);
    await tearDown?.();
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
