// The databases a benchmark runs on, each fresh and removed afterwards: embedded PGlite in a temp
// folder, and a new database on a PostgreSQL server.
import { readFile, rm } from "node:fs/promises";
import pg from "pg";
import { openDatabase, type Db } from "@/server/db/client";
import { installedVersionPath } from "./paths";
import { makeTempDir } from "./temp-dirs";

export type EngineName = "PGlite" | "PostgreSQL";

export interface BenchEngine {
  name: EngineName;
  db: Db;
  /** e.g. "PostgreSQL 16.4" or "PGlite 0.5.14 (PostgreSQL 17.x)". */
  version: string;
  /** What `next start` needs to serve this database: DATA_DIR (once released) or DATABASE_URL. */
  serverEnv: Record<string, string>;
  /**
   * PGlite: closes the bench's handle and keeps the folder, so a server may open it (one process owns
   * it); db is unusable afterwards. PostgreSQL: nothing to do. close() still removes everything.
   */
  release(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const CONNECT_TIMEOUT_MS = 5_000;

async function serverVersion(db: Db): Promise<string> {
  const rows = await db.$queryRaw<{ version: string }[]>`SELECT version() AS version`;
  return /^PostgreSQL [^\s,]+/.exec(rows[0]?.version ?? "")?.[0] ?? "unknown";
}

/** Opens and migrates an embedded database in a fresh temp folder, removed on close. */
export async function openPgliteEngine(): Promise<BenchEngine> {
  const dataDir = await makeTempDir("pglite");
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  let handle: Awaited<ReturnType<typeof openDatabase>> | undefined;
  try {
    handle = await openDatabase({ kind: "pglite", dataDir });
    const opened = handle;
    /** Closing twice is not allowed: the studio and agents rows both release the folder to a server. */
    let released: Promise<void> | undefined;
    const release = () => (released ??= opened.close());
    const { version: pgliteVersion } = JSON.parse(await readFile(installedVersionPath("@electric-sql/pglite"), "utf8")) as {
      version: string;
    };
    return {
      name: "PGlite",
      db: opened.db,
      version: `PGlite ${pgliteVersion} (${await serverVersion(opened.db)})`,
      serverEnv: { DATA_DIR: dataDir },
      release,
      close: async () => {
        try {
          await release();
        } finally {
          await removeDir();
        }
      },
    };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await removeDir();
    throw error;
  }
}

export type PostgresOpening = { engine: BenchEngine } | { unavailable: string };

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparsable URL)";
  }
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** No run lasts two hours: an older ace_bench_<timestamp> belongs to a run that was killed. */
const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

async function dropStaleDatabases(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^ace_bench_[0-9]+$'`);
  for (const { datname } of rows) {
    if (Date.now() - Number(datname.slice("ace_bench_".length)) < STALE_AFTER_MS) continue;
    console.log(`[bench] dropping ${datname}, left behind by a run that did not finish`);
    await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}

/**
 * Creates `ace_bench_<timestamp>` on the server at adminUrl and opens it; dropped (WITH (FORCE)) on
 * close. An unreachable server is not an error: the caller notes it and carries on with PGlite.
 */
export async function openPostgresEngine(adminUrl: string): Promise<PostgresOpening> {
  const name = `ace_bench_${Date.now()}`;
  try {
    await withAdmin(adminUrl, async (client) => {
      await dropStaleDatabases(client);
      await client.query(`CREATE DATABASE "${name}"`);
    });
  } catch (error) {
    return { unavailable: `PostgreSQL at ${redacted(adminUrl)} is unreachable or refused CREATE DATABASE: ${(error as Error).message}` };
  }
  const drop = () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    const handle = await openDatabase({ kind: "postgres", url: url.toString() });
    return {
      engine: {
        name: "PostgreSQL",
        db: handle.db,
        version: await serverVersion(handle.db),
        serverEnv: { DATABASE_URL: url.toString() },
        release: async () => undefined,
        close: async () => {
          try {
            await handle.close();
          } finally {
            await drop();
          }
        },
      },
    };
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
}
