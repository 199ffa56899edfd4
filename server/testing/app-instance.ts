// One app instance (server/testing/app-server.ts) as its own process, on either engine, for tests
// that send requests over HTTP to a running server: a fresh PostgreSQL database made for it, or a
// fresh embedded data folder (or one made beforehand, which several instances may share). After
// stop(), `database` still names where its data is, to inspect.
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

/** An instance's database: a PostgreSQL URL, or the embedded engine's data folder. */
export type InstanceDatabase = { kind: "postgres"; url: string } | { kind: "pglite"; dataDir: string };

export interface AppInstance {
  url: string;
  database: InstanceDatabase;
  /** What the process printed, stdout and stderr, in order. */
  log: string[];
  child: ChildProcess;
  trpc: AppClient;
  /** A client of the studio's API sending `headers` with each request (an API key, a session cookie). */
  trpcWith(headers: Record<string, string>): AppClient;
  /** Stops the process (SIGTERM, then SIGKILL after 10 s); the database stays until drop(). */
  stop(): Promise<void>;
  /** Stops, then drops the database the instance made (one it was given stays: its maker drops it). */
  drop(): Promise<void>;
}

export type AppClient = ReturnType<typeof createTRPCClient<AppRouter>>;

/** A database made for app instances, and how to drop it. */
export interface InstanceDatabaseMade {
  database: InstanceDatabase;
  drop(): Promise<void>;
}

/** Runs `run` on a connection of its own to `url`, closed afterwards. */
export async function onPostgres<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database of `engine` for app instances. `postgresUrl` is the
 * run's PostgreSQL database (inject("testPostgresUrl")): the new one is made beside it.
 */
export async function createInstanceDatabase(engine: TestEngine, postgresUrl: string | undefined): Promise<InstanceDatabaseMade> {
  if (engine === "pglite") {
    const folder = mkdtempSync(path.join(tmpdir(), "ace-instance-"));
    return {
      database: { kind: "pglite", dataDir: path.join(folder, "data") },
      drop: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  if (!postgresUrl) throw new Error("No PostgreSQL test database: use testEngines() to choose engines.");
  const name = `ace_test_instance_${Date.now()}_${randomBytes(4).toString("hex")}`;
  await onPostgres(postgresUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    database: { kind: "postgres", url: url.toString() },
    drop: async () => {
      await onPostgres(postgresUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/**
 * A port no one listens on, as the system hands it out: no fixed ranges, which tests running side by
 * side would fight over. The instance must know its port before it binds (its start-up names it),
 * so the rare port taken in between is met by trying again (see startAppInstance).
 */
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

/** Spawns app-server.ts on `port` and resolves once it says it listens there. */
async function spawnServing(port: number, env: NodeJS.ProcessEnv, log: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "server/testing/app-server.ts"], {
    cwd: process.cwd(),
    env: { ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      log.push(chunk.toString());
      if (chunk.toString().includes(`listening on ${port}`)) resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
    child.once("exit", (code) => reject(new Error(`The app instance stopped (exit ${code}) before serving:\n${log.join("")}`)));
  });
  return child;
}

/**
 * Starts an instance and resolves once it serves, on a free port the system picked. It runs on a new
 * database of `engine` (see createInstanceDatabase), or on `database` when given: several instances
 * may share one. `env` adds to or overrides the instance's environment.
 */
export async function startAppInstance(
  engine: TestEngine,
  { postgresUrl, database: given, env = {} }: { postgresUrl?: string; database?: InstanceDatabase; env?: Record<string, string> } = {},
): Promise<AppInstance> {
  const made = given ? undefined : await createInstanceDatabase(engine, postgresUrl);
  const database = given ?? made!.database;
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_RUNTIME: "nodejs",
    HOST: "127.0.0.1",
    ACE_DEMO_SEED: "off",
    ACE_LLM_PROVIDER: "offline",
  };
  delete childEnv.DATABASE_URL;
  delete childEnv.DATA_DIR;
  Object.assign(childEnv, database.kind === "postgres" ? { DATABASE_URL: database.url } : { DATA_DIR: database.dataDir }, env);
  for (const name of Object.keys(childEnv)) if (name.startsWith("VITEST") || name === "TEST") delete childEnv[name];
  const log: string[] = [];
  let child: ChildProcess | undefined;
  let port = 0;
  try {
    for (let attempt = 1; !child; attempt += 1) {
      port = await freePort();
      child = await spawnServing(port, childEnv, log).catch((error: unknown) => {
        if (attempt < 3 && log.join("").includes("EADDRINUSE")) return undefined;
        throw error;
      });
    }
  } catch (error) {
    await made?.drop();
    throw error;
  }
  const serving = child;
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (serving.exitCode !== null || serving.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => serving.once("exit", () => resolve()));
    serving.kill("SIGTERM");
    const timer = setTimeout(() => serving.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const drop = async () => {
    await stop();
    await made?.drop();
  };
  const trpcWith = (headers: Record<string, string>) =>
    createTRPCClient<AppRouter>({ links: [httpLink({ url: `${url}/api/trpc`, transformer: superjson, headers })] });
  return { url, database, log, child: serving, trpc: trpcWith({}), trpcWith, stop, drop };
}
