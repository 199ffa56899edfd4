// The probe of a playbook-restricted admin key, over HTTP against a running app instance
// (server/testing/app-server.ts) on embedded PGlite and on PostgreSQL: restricted to playbook
// "alpha", it cannot approve or reject a delta of "beta", read beta's deltas, traces or audit
// entries, change the studio retention, or create an unrestricted key or a user. And a restricted
// experiments:write key's PATCH /api/v1/experiments/{key} answers at once while agents poll context
// (it held the embedded database for 30 s).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import pg from "pg";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { SMALL_PLAYBOOK, twoVariants } from "@/server/testing/fixtures";
import type { AppRouter } from "@/server/trpc/root";

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
    // The db layer refuses outer-client queries inside a transaction, as under vitest.
    ACE_TRANSACTION_GUARD: "on",
    ...database,
  };
  for (const name of Object.keys(env)) if (name.startsWith("VITEST") || name === "TEST") delete env[name];
  if ("DATA_DIR" in database) delete env.DATABASE_URL;
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
  if (!instance) return;
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function trpcAt(instance: Instance, key?: string) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${instance.url}/api/trpc`, transformer: superjson, headers: key ? { authorization: `Bearer ${key}` } : {} })],
  });
}

/** The call fails over HTTP with a 403 whose message names the restriction. */
async function expectRestricted(call: Promise<unknown>, message = /restricted to the playbook "alpha"/) {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const clientError = error as TRPCClientError<AppRouter>;
  expect(clientError.data?.httpStatus).toBe(403);
  expect(clientError.message).toMatch(message);
}

const engines: { engine: string; open(): Promise<{ env: { DATABASE_URL: string } | { DATA_DIR: string }; drop(): Promise<void> }> }[] = [
  {
    engine: "pglite",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "ace-restriction-"));
      return { env: { DATA_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  ...(postgresUrl
    ? [
        {
          engine: "postgres",
          async open() {
            const admin = new URL(postgresUrl);
            admin.pathname = "/postgres";
            const name = `ace_restriction_${randomBytes(6).toString("hex")}`;
            const run = async (sql: string) => {
              const client = new pg.Client({ connectionString: admin.toString() });
              await client.connect();
              try {
                await client.query(sql);
              } finally {
                await client.end();
              }
            };
            await run(`CREATE DATABASE "${name}"`);
            const url = new URL(admin);
            url.pathname = `/${name}`;
            return { env: { DATABASE_URL: url.toString() }, drop: () => run(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
          },
        },
      ]
    : []),
];

describe.each(engines)("a restricted key over HTTP on $engine", ({ engine, open }) => {
  let instance: Instance | undefined;
  let drop: (() => Promise<void>) | undefined;
  const ids = { alpha: "", beta: "", betaDelta: "", betaSecondDelta: "" };
  let adminSecret = "";
  let experimentsSecret = "";

  beforeAll(async () => {
    const database = await open();
    drop = database.drop;
    instance = await startInstance(database.env);
    // Nobody has an account yet and the request comes from this computer: the local operator sets up.
    const local = trpcAt(instance);
    for (const name of ["alpha", "beta"] as const) {
      ids[name] = (
        await local.playbook.import.mutate({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name } })
      ).playbookId;
      await local.experiments.create.mutate(twoVariants({ key: `exp-${name}`, playbook: name, status: "running" }));
    }
    const propose = (content: string) =>
      local.delta.propose.mutate({
        playbookId: ids.beta,
        operations: [{ operation: { type: "add", section: "strategies_and_insights", content } }],
        rationale: "From a review.",
      });
    ids.betaDelta = (await propose("Confirm the order number before refunding.")).deltaId;
    ids.betaSecondDelta = (await propose("Ask for the receipt before a refund.")).deltaId;
    await local.traces.ingest.mutate({ traces: [{ playbook: "beta", task: "Refund order 7", output: "Done.", outcome: "success" }] });
    adminSecret = (await local.apiKeys.create.mutate({ name: "alpha admin", scopes: ["admin"], playbooks: [ids.alpha] })).secret;
    experimentsSecret = (
      await local.apiKeys.create.mutate({
        name: "alpha experiments",
        scopes: ["experiments:write", "context:read"],
        playbooks: [ids.alpha],
      })
    ).secret;
  }, 120_000);

  afterAll(async () => {
    await stopInstance(instance);
    await drop?.();
  });

  it("cannot approve or reject another playbook's delta, and the playbook stays at its version", async () => {
    onTestFailed(() => console.error(instance?.log.join("")));
    const key = trpcAt(instance!, adminSecret);
    await expectRestricted(key.delta.approve.mutate({ deltaId: ids.betaDelta }));
    await expectRestricted(key.delta.reject.mutate({ deltaId: ids.betaDelta, reason: "no" }));
    await expectRestricted(key.delta.bulk.mutate({ action: "reject", deltaIds: [ids.betaDelta, ids.betaSecondDelta], reason: "no" }));
    const local = trpcAt(instance!);
    expect((await local.playbook.get.query({ playbookId: ids.beta })).version).toBe(1);
    expect((await local.delta.get.query({ deltaId: ids.betaDelta })).status).toBe("pending");
    expect((await local.delta.get.query({ deltaId: ids.betaSecondDelta })).status).toBe("pending");
  });

  it("cannot read another playbook's deltas, traces or audit entries, and its lists hold its own playbook only", async () => {
    const key = trpcAt(instance!, adminSecret);
    await expectRestricted(key.delta.list.query({ playbookId: ids.beta }));
    await expectRestricted(key.delta.get.query({ deltaId: ids.betaDelta }));
    await expectRestricted(key.traces.list.query({ playbookId: ids.beta }));
    await expectRestricted(key.audit.list.query({ playbookId: ids.beta }));
    await expectRestricted(key.audit.list.query({}), /studio-wide/);
    const deltas = await key.delta.list.query({});
    expect(deltas.total).toBe(0);
    expect((await key.traces.list.query({})).total).toBe(0);
    expect((await key.playbook.list.query()).map((playbook) => playbook.name)).toEqual(["alpha"]);
  });

  it("cannot change the studio retention, create an unrestricted key or any user", async () => {
    const key = trpcAt(instance!, adminSecret);
    const local = trpcAt(instance!);
    const retention = await local.retention.studioDefault.query();
    await expectRestricted(key.retention.setStudioDefault.mutate({ ...retention, traces: 1 }), /studio-wide/);
    expect(await local.retention.studioDefault.query()).toEqual(retention);
    await expectRestricted(key.apiKeys.create.mutate({ name: "wide", scopes: ["admin"], playbooks: "all" }));
    await expectRestricted(
      key.users.create.mutate({ email: "eve@example.test", name: "Eve", role: "admin", password: "a long enough password" }),
      /studio-wide/,
    );
    expect((await local.apiKeys.list.query()).map((listed) => listed.name).sort()).toEqual(["alpha admin", "alpha experiments"]);
    // Within its rights it may act: a key for its own playbook.
    await expect(key.apiKeys.create.mutate({ name: "alpha helper", scopes: ["admin"], playbooks: [ids.alpha] })).resolves.toMatchObject({
      name: "alpha helper",
    });
  });

  it(`answers a restricted key's experiment PATCH within a second while ten agents poll context (${engine})`, async () => {
    onTestFailed(() => console.error(instance?.log.join("")));
    const headers = { authorization: `Bearer ${experimentsSecret}` };
    const started = Date.now();
    const timed = async (request: Promise<Response>) => {
      const response = await request;
      return { status: response.status, ms: Date.now() - started, text: await response.text() };
    };
    const [patch, ...polls] = await Promise.all([
      timed(
        fetch(`${instance!.url}/api/v1/experiments/exp-alpha`, {
          method: "PATCH",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ name: "Tone, renamed" }),
        }),
      ),
      ...Array.from({ length: 10 }, () => timed(fetch(`${instance!.url}/api/v1/playbooks/alpha/context`, { headers }))),
    ]);
    expect(patch.status, patch.text).toBe(200);
    expect(JSON.parse(patch.text)).toMatchObject({ key: "exp-alpha", name: "Tone, renamed" });
    expect(patch.ms).toBeLessThan(1_000);
    expect(polls.map((poll) => poll.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(Math.max(...polls.map((poll) => poll.ms))).toBeLessThan(1_000);
    // The other playbook's experiment stays out of reach, and unchanged.
    const other = await fetch(`${instance!.url}/api/v1/experiments/exp-beta`, {
      method: "PATCH",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Taken" }),
    });
    expect(other.status).toBe(403);
    expect(await other.text()).toMatch(/may not touch the playbook \\?"beta/);
  });
});
