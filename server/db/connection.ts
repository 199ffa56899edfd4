// Connections to the configured database, without a Prisma client: one shared PGlite per data folder
// in this process (with the folder's lock), or a pg pool. The client and the migration runner both
// build on it.
import { mkdirSync } from "node:fs";
import { PGlite, type QueryOptions, type Transaction } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { preparedQueries } from "./pglite-statements";
import { statementNames } from "./prepared";
import { type DatabaseConfig, MEMORY_DATA_DIR, pgliteDir } from "./config";
import { acquireLock, releaseLock } from "./lock";
import { assertOutsideTransaction, transactionGuardEnabled } from "./transaction-guard";

export type Connection = {
  config: DatabaseConfig;
  /** The adapter factory; the Prisma client and migrations run through it. */
  factory: SqlMigrationAwareDriverAdapterFactory;
  /** The PGlite instance when embedded. */
  pglite?: PGlite;
  close(): Promise<void>;
};

export type ConnectOptions = {
  /** Embedded only: take the data folder's lock so no other process opens it (default true). */
  lock?: boolean;
  /** In-memory PGlite only: start from this dumpDataDir() snapshot. */
  snapshot?: Blob | File;
  /** PostgreSQL only: the pool's size (pg's default, 10, when unset). */
  maxConnections?: number;
};

// A file-backed PGlite is shared by everything in this process that opens the same
// folder (refcounted, on globalThis so duplicated module instances share it too): two PGlite
// instances on one folder would corrupt it.

type SharedPglite = { opening: Promise<PGlite>; refs: number; locked: boolean; dataDir: string };
const globalForPglites = globalThis as typeof globalThis & { __acePglites?: Map<string, SharedPglite> };
const pglites: Map<string, SharedPglite> = (globalForPglites.__acePglites ??= new Map());

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

const adapted = new WeakSet<PGlite>();

/**
 * The instance's query() made quicker for the Prisma adapter, which alone queries it:
 * - The adapter passes its type parsers with every query, and PGlite merges them into a copy of its
 *   own 318 each time: 0.13 ms of a 0.45 ms statement. Installed on the instance at the first query
 *   instead, the adapter's later queries go without them and read the same merged map.
 * - Statements are prepared once per text (pglite-statements.ts).
 */
function adaptForPrisma(pglite: PGlite): PGlite {
  if (adapted.has(pglite)) return pglite;
  adapted.add(pglite);
  let installed: QueryOptions["parsers"];
  const withoutInstalled = (options: QueryOptions | undefined): QueryOptions | undefined => {
    if (!options?.parsers) return options;
    if (installed === undefined) {
      pglite.parsers = { ...pglite.parsers, ...options.parsers };
      installed = options.parsers;
    }
    if (options.parsers !== installed) return options;
    const { parsers: _installed, ...rest } = options;
    return rest;
  };
  const prepared = preparedQueries(pglite, pglite.query.bind(pglite));
  const transaction = pglite.transaction.bind(pglite);
  const guard = transactionGuardEnabled();
  pglite.query = (sql, params, options) => {
    if (guard) assertOutsideTransaction("A query");
    return prepared.query(sql, params, withoutInstalled(options));
  };
  pglite.transaction = <T>(work: (tx: Transaction) => Promise<T>) => {
    if (guard) assertOutsideTransaction("A new transaction");
    return transaction((tx) => {
      const txQuery = prepared.inTransaction(tx.query.bind(tx));
      tx.query = async (sql, params, options) => {
        if (tx.closed) throw new Error("Transaction is closed");
        return txQuery(sql, params, withoutInstalled(options));
      };
      return work(tx);
    });
  };
  return pglite;
}

/** The URL without Prisma's pgbouncer parameter, and whether it was "true". */
function withoutPoolerFlag(databaseUrl: string): { url: string; pooler: boolean } {
  if (!databaseUrl.includes("pgbouncer=")) return { url: databaseUrl, pooler: false };
  const url = new URL(databaseUrl);
  const pooler = url.searchParams.get("pgbouncer") === "true";
  url.searchParams.delete("pgbouncer");
  return { url: url.toString(), pooler };
}

/** An adapter factory for the configured database, without a Prisma client. */
export async function connect(config: DatabaseConfig, options: ConnectOptions = {}): Promise<Connection> {
  if (config.kind === "pglite") {
    const { pglite, close } = await openPglite(config.dataDir, options.lock ?? true, options.snapshot);
    return { config, factory: new PrismaPGlite(adaptForPrisma(pglite)), pglite, close };
  }
  // Behind a pooler in transaction mode (PgBouncer before 1.21) a statement prepared on one server
  // connection is missing on the next: Prisma's pgbouncer=true turns the names off.
  const { url, pooler } = withoutPoolerFlag(config.url);
  const pool = new pg.Pool({ connectionString: url, max: options.maxConnections });
  if (transactionGuardEnabled()) {
    // Outside a transaction the adapter queries the pool; a transaction has a client of its own.
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((...args: unknown[]) => {
      assertOutsideTransaction("A query");
      return query(...args);
    }) as typeof pool.query;
  }
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  let closed = false;
  return {
    config,
    // Statements run again are kept by name on each connection (prepared.ts).
    factory: new PrismaPg(pool, pooler ? {} : { statementNameGenerator: statementNames() }),
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
