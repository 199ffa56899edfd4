// Erasure over HTTP reaches every copy, on embedded PGlite and on PostgreSQL: an app instance runs as
// its own process (server/testing/app-server.ts: the start-up of `next start`, its run worker with
// the offline rules, and the same route handlers). The agent's traces go in through POST
// /api/v1/traces, the instance reflects and curates them, DELETE /api/v1/traces?unitId=… erases
// one customer; then no text, json or text[] column of any table holds the marker from their trace.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { createTRPCClient, httpLink } from "@trpc/client";
import pg from "pg";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { pgliteDir } from "@/server/db/config";
import { testEngines, type TestEngine } from "@/server/testing/db";
import { SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { MARKER, markedTrace, otherTrace, UNIT } from "@/server/testing/marked-trace";
import { columnsHolding, type RunQuery } from "@/server/testing/text-scan";
import type { AppRouter } from "@/server/trpc/root";

/** Ports of this test's instances, one per engine. */
const PORTS: Record<TestEngine, number> = { pglite: 3861, postgres: 3862 };

interface Instance {
  url: string;
  child: ChildProcess;
  log: string[];
}

async function startInstance(port: number, database: { DATABASE_URL: string } | { DATA_DIR: string }): Promise<Instance> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_RUNTIME: "nodejs",
    PORT: String(port),
    HOST: "127.0.0.1",
    ACE_DEMO_SEED: "off",
    ACE_LLM_PROVIDER: "offline",
    ...database,
  };
  if (!("DATABASE_URL" in database)) delete env.DATABASE_URL;
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

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onPostgres<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

describe.each(testEngines())("erasure over HTTP on %s", (engine) => {
  const adminUrl = withDatabase(inject("testPostgresUrl") ?? "postgresql://postgres@127.0.0.1:5432/postgres", "postgres");
  const databaseUrl = withDatabase(adminUrl, `ace_copies_${randomBytes(4).toString("hex")}`);
  const dataDir = engine === "pglite" ? mkdtempSync(join(tmpdir(), "ace-copies-")) : "";
  let instance: Instance | undefined;

  beforeAll(async () => {
    if (engine === "postgres")
      await onPostgres(adminUrl, (client) => client.query(`CREATE DATABASE "${new URL(databaseUrl).pathname.slice(1)}"`));
    instance = await startInstance(PORTS[engine], engine === "postgres" ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir });
  }, 120_000);

  afterAll(async () => {
    await stopInstance(instance);
    if (engine === "postgres")
      await onPostgres(adminUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS "${new URL(databaseUrl).pathname.slice(1)}" WITH (FORCE)`),
      );
    else rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** Every text column of the instance's database holding the marker (PGlite: opened once the instance has stopped). */
  async function holdingMarker(): Promise<string[]> {
    if (engine === "postgres") {
      return onPostgres(databaseUrl, (client) =>
        columnsHolding(async (sql, params) => (await client.query(sql, params)).rows as Record<string, unknown>[], MARKER),
      );
    }
    await stopInstance(instance);
    const pglite = new PGlite(pgliteDir(dataDir));
    try {
      const query: RunQuery = async (sql, params) => (await pglite.query<Record<string, unknown>>(sql, params)).rows;
      return await columnsHolding(query, MARKER);
    } finally {
      await pglite.close();
    }
  }

  it("DELETE /api/v1/traces by unit id leaves the marker in no column: runs emptied, deltas rewritten, the other customer's kept", async () => {
    onTestFailed(() => console.error(instance?.log.join("").slice(-8_000)));
    const url = instance!.url;
    const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/api/trpc`, transformer: superjson })] });
    const { playbookId } = await trpc.playbook.import.mutate({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: "support" },
    });
    await trpc.playbook.updateSettings.mutate({ playbookId, settings: { curatorFrequency: 2 } });

    const posted = await fetch(`${url}/api/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ traces: [markedTrace(), otherTrace] }),
    });
    expect(posted.status, await posted.clone().text()).toBe(201);

    // The instance's worker reflects both traces, then curates them in one run.
    const deadline = Date.now() + 60_000;
    let runs = (await trpc.runs.list.query({ playbookId, limit: 50 })).items;
    while (!(runs.length === 3 && runs.every((run) => run.status === "succeeded"))) {
      expect(Date.now(), `runs not finished: ${JSON.stringify(runs.map((run) => [run.role, run.status]))}`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
      runs = (await trpc.runs.list.query({ playbookId, limit: 50 })).items;
    }
    const curator = runs.find((run) => run.role === "curator")!;
    expect(JSON.stringify((await trpc.runs.get.query({ runId: curator.id })).prompt)).toContain(MARKER);

    const deleted = await fetch(`${url}/api/v1/traces?playbook=support&unitId=${UNIT}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: { traces: 1, exposures: 0, runsEmptied: 2, deltasRewritten: 2 } });

    const after = await Promise.all(runs.map((run) => trpc.runs.get.query({ runId: run.id })));
    expect(after.map((run) => run.redactedReason ?? "kept").sort()).toEqual(["erasure", "erasure", "kept"]);
    expect(after.find((run) => run.redactedReason === null)?.traces.map((trace) => trace.task)).toEqual([otherTrace.task]);

    expect(await holdingMarker()).toEqual([]);
  }, 180_000);
});
