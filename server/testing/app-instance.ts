// One app instance (server/testing/app-server.ts) as its own process, on either engine, for tests
// that send requests over HTTP to a running server: a fresh PostgreSQL database made for it, or a
// fresh embedded data folder. After stop(), `database` still names where its data is, to inspect.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import pg from "pg";
import superjson from "superjson";
import type { AppRouter } from "@/server/trpc/root";
import type { TestEngine } from "./db";

export interface AppInstance {
  url: string;
  /** The instance's database: a PostgreSQL URL, or the embedded engine's data folder. */
  database: { kind: "postgres"; url: string } | { kind: "pglite"; dataDir: string };
  log: string[];
  trpc: ReturnType<typeof createTRPCClient<AppRouter>>;
  /** Stops the process (SIGTERM, then SIGKILL after 10 s); the database stays until drop(). */
  stop(): Promise<void>;
  /** Drops the PostgreSQL database or removes the data folder. */
  drop(): Promise<void>;
}

/** A port of `ports` no one listens on (the range a task was given). */
async function freePortOf(ports: readonly number[]): Promise<number> {
  for (const port of ports) {
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`No free port among ${ports.join(", ")}.`);
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

/**
 * Starts an instance on a new database of `engine` and resolves once it serves. `postgresUrl` is the
 * run's PostgreSQL database (inject("testPostgresUrl")): the instance gets a database of its own
 * beside it.
 */
export async function startAppInstance(
  engine: TestEngine,
  { ports, postgresUrl, env = {} }: { ports: readonly number[]; postgresUrl?: string; env?: Record<string, string> },
): Promise<AppInstance> {
  let database: AppInstance["database"];
  if (engine === "postgres") {
    if (!postgresUrl) throw new Error("No PostgreSQL test database: use testEngines() to choose engines.");
    const name = `ace_test_instance_${Date.now()}_${randomBytes(4).toString("hex")}`;
    await onPostgres(postgresUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    database = { kind: "postgres", url: url.toString() };
  } else {
    database = { kind: "pglite", dataDir: path.join(mkdtempSync(path.join(tmpdir(), "ace-instance-")), "data") };
  }
  const port = await freePortOf(ports);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_RUNTIME: "nodejs",
    PORT: String(port),
    HOST: "127.0.0.1",
    ACE_DEMO_SEED: "off",
    ACE_LLM_PROVIDER: "offline",
    ...(database.kind === "postgres" ? { DATABASE_URL: database.url } : { DATA_DIR: database.dataDir }),
    ...env,
  };
  if (database.kind === "pglite") delete childEnv.DATABASE_URL;
  for (const name of Object.keys(childEnv)) if (name.startsWith("VITEST") || name === "TEST") delete childEnv[name];
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server/testing/app-server.ts"], {
    cwd: process.cwd(),
    env: childEnv,
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
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const drop = async () => {
    await stop();
    if (database.kind === "postgres") {
      const name = new URL(database.url).pathname.slice(1);
      await onPostgres(postgresUrl as string, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    } else {
      rmSync(path.dirname(database.dataDir), { recursive: true, force: true });
    }
  };
  const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/api/trpc`, transformer: superjson })] });
  return { url, database, log, trpc, stop, drop };
}
