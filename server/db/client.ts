// The Prisma client on embedded PGlite or PostgreSQL, migrated on open. The app server uses
// getDb(); scripts and tests use openDatabase() and close what they open.
import { databaseConfigFromEnv, type DatabaseConfig } from "./config";
import { type Connection, type ConnectOptions, connect } from "./connection";
import { Prisma, PrismaClient } from "./generated/client";
import { applyMigrations } from "./migrate";
import { guardTransactions } from "./transaction-guard";

export { type Connection, connect };

export * from "./generated/enums";
export { Prisma };
export type Db = PrismaClient;
/** The client inside `db.$transaction(async (tx) => …)`. */
export type Tx = Prisma.TransactionClient;
/** What a repository function accepts: the client, or the transaction it runs in. */
export type DbOrTx = Db | Tx;

/**
 * Independent INSERTs as one statement, the others as data-modifying WITH clauses of the last: one
 * round trip instead of one each. They run on one snapshot, so none may read a row another writes.
 */
export async function insertTogether(tx: DbOrTx, statements: readonly Prisma.Sql[]): Promise<void> {
  const last = statements.at(-1);
  if (!last) return;
  const clauses = statements.slice(0, -1).map((statement, i) => Prisma.sql`${Prisma.raw(`written_${i}`)} AS (${statement})`);
  await tx.$executeRaw(clauses.length === 0 ? last : Prisma.sql`WITH ${Prisma.join(clauses, ", ")} ${last}`);
}

export type OpenOptions = Pick<ConnectOptions, "lock" | "snapshot"> & {
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
};

export type DatabaseHandle = Connection & { db: Db };

const globalForDb = globalThis as typeof globalThis & { __aceDb?: Promise<DatabaseHandle> };

/** Opens (and by default migrates) the database. Close it when done. */
export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<DatabaseHandle> {
  const connection = await connect(config, options);
  try {
    // PostgreSQL: migrate on a connection of its own, closed afterwards. The schema engine takes
    // the migration advisory lock on whichever connection it is handed; left in a shared pool, that
    // connection kept the lock and every other process waited for it forever.
    if (options.migrate ?? true) await applyMigrations(config.kind === "postgres" ? config : connection.factory);
  } catch (error) {
    await connection.close();
    throw error;
  }
  const db = guardTransactions(new PrismaClient({ adapter: connection.factory }));
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
  // Set by `next build` for itself and its workers (Next.js's PHASE_PRODUCTION_BUILD).
  if (process.env.NEXT_PHASE === "phase-production-build") {
    throw new Error(
      'A build opens no database, and something asked for one during `next build`: a page or route that reads data must render on demand (export const dynamic = "force-dynamic", or await connection()).',
    );
  }
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
