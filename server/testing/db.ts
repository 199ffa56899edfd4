// Databases for integration tests, on both engines:
//   describe.each(testEngines())("…on %s", (engine) => { … openTestDatabase(engine) … })
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterAll, beforeAll, describe, inject, it } from "vitest";
import { type Db, type DatabaseHandle, openDatabase, serveDb } from "../db/client";
import { forgetHeads } from "../context/heads";
import { backgroundBuilds } from "../deltas/engine-state";
import { MEMORY_DATA_DIR } from "../db/config";
import { applyMigrations, defaultMigrationPaths, readMigrationsList } from "../db/migrate";

export type TestEngine = "pglite" | "postgres";

export type TestDatabase = {
  db: Db;
  engine: TestEngine;
  handle: DatabaseHandle;
  /** Empties every app table (not _prisma_migrations). */
  reset(): Promise<void>;
  close(): Promise<void>;
};

/**
 * The engines to run against: pglite always, postgres when the run's global setup made a database.
 * Without PostgreSQL (outside CI only: with CI=true global-setup.ts fails the run instead) it
 * registers a skipped suite titled with global-setup's reason, so the report shows why.
 */
export function testEngines(): TestEngine[] {
  if (inject("testPostgresUrl")) return ["pglite", "postgres"];
  const reason = inject("testPostgresSkipReason") ?? "no PostgreSQL database was provided by server/testing/global-setup.ts";
  describe.skip("postgres", () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
  return ["pglite"];
}

/**
 * A clean, migrated database: a fresh in-memory PGlite, or this run's PostgreSQL database emptied.
 * `serve`: the route handlers use it too (serveDb) until it is closed, for tests that call them.
 */
export async function openTestDatabase(engine: TestEngine, { serve = false }: { serve?: boolean } = {}): Promise<TestDatabase> {
  let handle: DatabaseHandle;
  if (engine === "pglite") {
    handle = await openDatabase({ kind: "pglite", dataDir: MEMORY_DATA_DIR }, { migrate: false, snapshot: await migratedSnapshot() });
  } else {
    const url = inject("testPostgresUrl");
    if (!url)
      throw new Error("No PostgreSQL test database: use testEngines() to choose engines (server/testing/global-setup.ts makes it).");
    handle = await openDatabase({ kind: "postgres", url }, { migrate: false });
  }
  const reset = () => truncateAppTables(handle.db);
  if (engine === "postgres") await reset(); // the run's database is shared by the files, one after another
  // Opening a playbook starts building its near-duplicate index (engine-state.ts): let it end first.
  const closeHandle = async () => {
    await backgroundBuilds(handle.db);
    await handle.close();
  };
  if (!serve) return { db: handle.db, engine, handle, reset, close: closeHandle };
  serveDb(handle.db);
  const close = async () => {
    serveDb(undefined);
    await closeHandle();
  };
  return { db: handle.db, engine, handle, reset, close };
}

async function truncateAppTables(db: Db) {
  const tables = await db.$queryRaw<{ name: string }[]>`
    SELECT tablename AS name FROM pg_tables
    WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`;
  if (tables.length === 0) return;
  const list = tables.map((t) => `"${t.name.replaceAll('"', '""')}"`).join(", ");
  await db.$executeRawUnsafe(`TRUNCATE ${list} RESTART IDENTITY CASCADE`);
  // Playbooks made next may take the names of those just removed.
  forgetHeads(db);
}

// A migrated PGlite data folder, dumped once and loaded into each new test database: loading takes
// ~0.6 s, creating and migrating ~2–4 s. Cached in memory per worker and on disk per migrations
// content, so only the first run after a migration change pays for migrating.
let snapshot: Promise<File> | undefined;

function migratedSnapshot(): Promise<File> {
  snapshot ??= loadOrBuildSnapshot();
  return snapshot;
}

async function loadOrBuildSnapshot(): Promise<File> {
  const paths = defaultMigrationPaths();
  const hash = createHash("sha256");
  hash.update(readPackageVersion("@electric-sql/pglite"));
  hash.update(JSON.stringify(readMigrationsList(paths.migrationsDir).migrationDirectories));
  const cacheDir = join(process.cwd(), "node_modules", ".cache", "ace-studio");
  const file = join(cacheDir, `pglite-migrated-${hash.digest("hex").slice(0, 16)}.tar`);
  if (existsSync(file)) {
    try {
      return new File([readFileSync(file)], "pgdata.tar");
    } catch {
      // replaced under our feet by another worker: build it ourselves
    }
  }

  const pglite = await PGlite.create();
  try {
    await applyMigrations(new PrismaPGlite(pglite), paths);
    const dump = await pglite.dumpDataDir("none");
    const bytes = new Uint8Array(await dump.arrayBuffer());
    try {
      mkdirSync(cacheDir, { recursive: true });
      for (const old of readdirSync(cacheDir)) {
        if (old.startsWith("pglite-migrated-") && join(cacheDir, old) !== file) rmSync(join(cacheDir, old), { force: true });
      }
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, file); // atomic: parallel workers never read half a file
    } catch {
      // a read-only checkout only loses the cache
    }
    return new File([bytes], "pgdata.tar");
  } finally {
    await pglite.close();
  }
}

function readPackageVersion(name: string): string {
  try {
    const pkg = join(process.cwd(), "node_modules", name, "package.json");
    return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** An embedded database as it was before a migration, to test what the migration does to data already there. */
export interface DatabaseBefore {
  pglite: PGlite;
  /** Applies the migrations from `migration` on, up to and including `through` if given; returns their names. */
  upgrade(through?: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * For a describe block: the database before `migration` (databaseBefore), opened before its tests
 * and closed after them (so it has no close of its own). Usable in the tests only.
 */
export function describedDatabaseBefore(migration: string): Omit<DatabaseBefore, "close"> {
  let opened: DatabaseBefore | undefined;
  beforeAll(async () => {
    opened = await databaseBefore(migration);
  });
  afterAll(() => opened?.close());
  const current = () => {
    if (!opened) throw new Error(`The database before ${migration} is opened for the tests, not before them.`);
    return opened;
  };
  return {
    get pglite() {
      return current().pglite;
    },
    upgrade: (through) => current().upgrade(through),
  };
}

/** An in-memory PGlite migrated up to, not including, `migration` (a folder name in prisma/migrations). */
export async function databaseBefore(migration: string): Promise<DatabaseBefore> {
  const paths = defaultMigrationPaths();
  const earlier = mkdtempSync(join(tmpdir(), "ace-migrations-"));
  /** The migrations before `last` (and `last` itself when inclusive), copied into `earlier`. */
  const cut = (last: string, inclusive: boolean) => {
    for (const entry of readdirSync(paths.migrationsDir)) {
      if (entry < last || (inclusive && entry === last) || entry === "migration_lock.toml")
        cpSync(join(paths.migrationsDir, entry), join(earlier, entry), { recursive: true });
    }
    return { schemaPath: paths.schemaPath, migrationsDir: earlier };
  };
  const pglite = await PGlite.create();
  try {
    await applyMigrations(new PrismaPGlite(pglite), cut(migration, false));
  } catch (error) {
    await pglite.close();
    rmSync(earlier, { recursive: true, force: true });
    throw error;
  }
  return {
    pglite,
    upgrade: (through) => applyMigrations(new PrismaPGlite(pglite), through === undefined ? paths : cut(through, true)),
    close: async () => {
      await pglite.close();
      rmSync(earlier, { recursive: true, force: true });
    },
  };
}
