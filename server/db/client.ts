// The Prisma client on embedded PGlite or PostgreSQL, migrated on open. The app server uses
// getDb(); scripts and tests use openDatabase() and close what they open.
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { type DatabaseConfig, databaseConfigFromEnv, MEMORY_DATA_DIR, pgliteDir } from "./config";
import { Prisma, PrismaClient } from "./generated/client";
import { acquireLock, releaseLock } from "./lock";
import { applyMigrations } from "./migrate";

export * from "./generated/enums";
export { Prisma };
export type Db = PrismaClient;
/** The client inside `db.$transaction(async (tx) => …)`. */
export type Tx = Prisma.TransactionClient;
/** What a repository function accepts: the client, or the transaction it runs in. */
export type DbOrTx = Db | Tx;

export type OpenOptions = {
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** Embedded only: take the data folder's lock so no other process opens it (default true). */
  lock?: boolean;
  /** In-memory PGlite only: start from this dumpDataDir() snapshot. */
  snapshot?: Blob | File;
};

export type DatabaseHandle = {
  db: Db;
  config: DatabaseConfig;
  /** The adapter factory under db; migrations run through it too. */
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** The PGlite instance when embedded. */
  pglite?: PGlite;
  close(): Promise<void>;
};

export type Connection = Omit<DatabaseHandle, "db">;

// -------------------------------------------------------------------------------------------------
// Connections. A file-backed PGlite is shared by everything in this process that opens the same
// folder (refcounted, on globalThis so duplicated module instances share it too): two PGlite
// instances on one folder would corrupt it.

type SharedPglite = { opening: Promise<PGlite>; refs: number; locked: boolean; dataDir: string };
const globalForDb = globalThis as typeof globalThis & {
  __acePglites?: Map<string, SharedPglite>;
  __aceDb?: Promise<DatabaseHandle>;
};
const pglites: Map<string, SharedPglite> = (globalForDb.__acePglites ??= new Map());

async function openPglite(dataDir: string, lock: boolean, snapshot?: Blob | File): Promise<{ pglite: PGlite; close(): Promise<void> }> {
  if (dataDir === MEMORY_DATA_DIR) {
    const pglite = await PGlite.create(snapshot ? { loadDataDir: snapshot } : {});
    return { pglite, close: () => (pglite.closed ? Promise.resolve() : pglite.close()) };
  }
  const dir = pgliteDir(dataDir);
  let shared = pglites.get(dir);
  if (!shared) {
    if (lock) acquireLock(dataDir); // throws DatabaseBusyError before touching the files
    mkdirSync(dir, { recursive: true });
    const entry: SharedPglite = { opening: PGlite.create(dir), refs: 0, locked: lock, dataDir };
    shared = entry;
    pglites.set(dir, entry);
    entry.opening.catch(() => {
      pglites.delete(dir);
      if (entry.locked) releaseLock(dataDir);
    });
  } else if (lock && !shared.locked) {
    acquireLock(dataDir);
    shared.locked = true;
  }
  const entry = shared;
  entry.refs++;
  let pglite: PGlite;
  try {
    pglite = await entry.opening;
  } catch (error) {
    entry.refs--;
    throw new Error(`Could not open the embedded database in ${dir}: ${(error as Error).message}`, { cause: error });
  }
  let closed = false;
  return {
    pglite,
    close: async () => {
      if (closed) return;
      closed = true;
      if (--entry.refs > 0) return;
      pglites.delete(dir);
      try {
        await pglite.close();
      } finally {
        if (entry.locked) releaseLock(entry.dataDir);
      }
    },
  };
}

/** An adapter factory for the configured database, without a Prisma client. */
export async function connect(config: DatabaseConfig, options: Pick<OpenOptions, "lock" | "snapshot"> = {}): Promise<Connection> {
  if (config.kind === "pglite") {
    const { pglite, close } = await openPglite(config.dataDir, options.lock ?? true, options.snapshot);
    return { config, factory: new PrismaPGlite(pglite), pglite, close };
  }
  const pool = new pg.Pool({ connectionString: config.url });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  let closed = false;
  return {
    config,
    factory: new PrismaPg(pool),
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** Opens (and by default migrates) the database. Close it when done. */
export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<DatabaseHandle> {
  const connection = await connect(config, options);
  try {
    if (options.migrate ?? true) await applyMigrations(connection.factory);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const db = new PrismaClient({ adapter: connection.factory });
  let closing: Promise<void> | undefined;
  return {
    ...connection,
    db,
    close: () =>
      (closing ??= (async () => {
        try {
          await db.$disconnect();
        } finally {
          await connection.close();
        }
      })()),
  };
}

/**
 * The app server's database: opened and migrated once per process from the environment
 * (DATABASE_URL or DATA_DIR). Concurrent first callers share one opening.
 */
export async function getDb(): Promise<Db> {
  if (servedDb) return servedDb;
  if (!globalForDb.__aceDb) {
    const opening = openDatabase(databaseConfigFromEnv());
    globalForDb.__aceDb = opening;
    opening.catch(() => {
      if (globalForDb.__aceDb === opening) globalForDb.__aceDb = undefined; // let the next call retry
    });
  }
  return (await globalForDb.__aceDb).db;
}

let servedDb: Db | undefined;

/**
 * Points getDb() at a database the caller opened (integration tests calling route handlers, the
 * benchmark); undefined goes back to the environment's.
 */
export function serveDb(db: Db | undefined): void {
  servedDb = db;
}

/** Closes the getDb() database (graceful shutdown). */
export async function closeDb(): Promise<void> {
  const opening = globalForDb.__aceDb;
  globalForDb.__aceDb = undefined;
  if (opening) await (await opening.catch(() => undefined))?.close();
}
