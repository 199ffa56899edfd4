import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { openTestDatabase, type TestDatabase, type TestEngine, testEngines } from "../testing/db";
import { closeDb, type Connection, connect, getDb, openDatabase, Prisma, type Tx } from "./client";
import { databaseConfigFromEnv } from "./config";
import { DatabaseBusyError, lockPath, readLiveLock, setLockUrl } from "./lock";
import {
  applyMigrations,
  createMigration,
  defaultMigrationPaths,
  markMigrationRolledBack,
  MigrationError,
  migrationStatus,
  readMigrationsList,
} from "./migrate";

const allMigrations = readMigrationsList(defaultMigrationPaths().migrationsDir).migrationDirectories.map((m) => m.path);

/** An empty database of the engine, not yet migrated; removed by its close(). */
async function emptyDatabase(engine: TestEngine): Promise<Connection> {
  if (engine === "pglite") return connect({ kind: "pglite", dataDir: ":memory:" });
  const runUrl = new URL(inject("testPostgresUrl")!);
  const name = `${runUrl.pathname.slice(1)}_empty`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: runUrl.toString() });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(runUrl);
  url.pathname = `/${name}`;
  const connection = await connect({ kind: "postgres", url: url.toString() });
  return {
    ...connection,
    close: async () => {
      await connection.close();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

async function rawQuery<T>(connection: Connection, sql: string): Promise<[T, ...T[]]> {
  const adapter = await connection.factory.connect();
  const { columnNames, rows } = await adapter.queryRaw({ sql, args: [], argTypes: [] });
  return rows.map((row) => Object.fromEntries(columnNames.map((name, i) => [name, row[i]]))) as [T, ...T[]];
}

describe.each(testEngines())("database on %s", (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await t.reset();
  });

  it("applies every migration to an empty database, then reports it up to date", async () => {
    const empty = await emptyDatabase(engine);
    try {
      expect(await migrationStatus(empty.factory)).toMatchObject({ pending: allMigrations, upToDate: false });
      expect(await applyMigrations(empty.factory)).toEqual(allMigrations);
      expect(await applyMigrations(empty.factory)).toEqual([]);
      expect(await migrationStatus(empty.factory)).toEqual({ pending: [], edited: [], failed: [], missingLocally: [], upToDate: true });
    } finally {
      await empty.close();
    }
  });

  it("names a failing migration, applies none of it, and blocks later deploys until it is rolled back", async () => {
    const project = mkdtempSync(join(tmpdir(), "ace-migrations-"));
    const paths = { schemaPath: join(project, "schema.prisma"), migrationsDir: join(project, "migrations") };
    cpSync(defaultMigrationPaths().migrationsDir, paths.migrationsDir, { recursive: true });
    const bad = join(paths.migrationsDir, "29990101000000_bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "migration.sql"), 'CREATE TABLE "Half" (id INT);\nALTER TABLE "Playbook" ADD COLUMN oops INT NOT NUL;\n');
    const empty = await emptyDatabase(engine);
    try {
      const failure = await applyMigrations(empty.factory, paths).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(MigrationError);
      expect((failure as Error).message).toMatch(/^Migration 29990101000000_bad failed: .*syntax error at or near "NUL"/);
      const [{ half }] = await rawQuery<{ half: string | null }>(empty, `SELECT to_regclass('"Half"')::text AS half`);
      expect(half).toBeNull(); // the statement before the error was rolled back too
      expect(await migrationStatus(empty.factory, paths)).toMatchObject({ failed: ["29990101000000_bad"] });
      await expect(applyMigrations(empty.factory, paths)).rejects.toThrow(/rolled-back 29990101000000_bad/);

      writeFileSync(join(bad, "migration.sql"), 'CREATE TABLE "Half" (id INT);\n');
      await markMigrationRolledBack(empty.factory, "29990101000000_bad", paths);
      expect(await applyMigrations(empty.factory, paths)).toEqual(["29990101000000_bad"]);
    } finally {
      await empty.close();
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("creates and reads a playbook with sections and bullets, and rejects a duplicate bullet id", async () => {
    const playbook = await t.db.playbook.create({
      data: {
        name: "support-agent",
        sections: { create: [{ name: "STRATEGIES AND HARD RULES", slug: "str", position: 0 }] },
      },
      include: { sections: true },
    });
    const section = playbook.sections[0]!;
    await t.db.bullet.createMany({
      data: [
        {
          playbookId: playbook.id,
          sectionId: section.id,
          externalId: "str-00001",
          content: "Check the order id first.",
          position: 0,
          helpful: 3,
        },
        { playbookId: playbook.id, sectionId: section.id, externalId: "str-00002", content: "Never promise refunds.", position: 1 },
      ],
    });

    const read = await t.db.playbook.findUniqueOrThrow({
      where: { name: "support-agent" },
      select: {
        settings: true,
        sections: {
          select: { name: true, bullets: { orderBy: { position: "asc" }, select: { externalId: true, helpful: true, status: true } } },
        },
      },
    });
    expect(read).toEqual({
      settings: {},
      sections: [
        {
          name: "STRATEGIES AND HARD RULES",
          bullets: [
            { externalId: "str-00001", helpful: 3, status: "active" },
            { externalId: "str-00002", helpful: 0, status: "active" },
          ],
        },
      ],
    });

    const duplicate = t.db.bullet.create({
      data: { playbookId: playbook.id, sectionId: section.id, externalId: "str-00001", content: "again", position: 2 },
    });
    await expect(duplicate).rejects.toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    await expect(duplicate).rejects.toMatchObject({ code: "P2002" });
    expect(await t.db.bullet.count()).toBe(2);
  });

  it("writes nothing when an interactive transaction throws", async () => {
    const attempt = t.db.$transaction(async (tx: Tx) => {
      const playbook = await tx.playbook.create({ data: { name: "doomed" } });
      await tx.section.create({ data: { playbookId: playbook.id, name: "S", slug: "s", position: 0 } });
      throw new Error("changed my mind");
    });
    await expect(attempt).rejects.toThrow("changed my mind");
    expect(await t.db.playbook.count()).toBe(0);
    expect(await t.db.section.count()).toBe(0);
  });

  it("writes every GIN index's entries at once: no pending list, which embedded PGlite would never vacuum", async () => {
    const indexes = await t.db.$queryRaw<{ name: string; options: string[] | null }[]>`
      SELECT c.relname AS name, c.reloptions AS options
      FROM pg_class c JOIN pg_am am ON am.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE am.amname = 'gin' AND n.nspname = current_schema()
      ORDER BY c.relname`;
    expect(indexes.map((index) => index.name)).toEqual(["Delta_evidence_idx", "PlaybookVersion_bulletIds_idx", "Run_traceIds_idx"]);
    for (const index of indexes) expect(index.options ?? [], index.name).toContain("fastupdate=off");
  });

  it("reset() empties the app tables but keeps the migration history", async () => {
    await t.db.playbook.create({ data: { name: "to be truncated" } });
    await t.reset();
    expect(await t.db.playbook.count()).toBe(0);
    expect(await migrationStatus(t.handle.factory)).toMatchObject({ upToDate: true });
  });
});

// A child process that opens the data folder and reports what happened as one JSON line.
const CHILD_SCRIPT = `
import { openDatabase } from ${JSON.stringify(resolve("server/db/client.ts"))};
try {
  const handle = await openDatabase({ kind: "pglite", dataDir: process.argv[2] });
  await handle.db.playbook.count();
  await handle.close();
  console.log(JSON.stringify({ ok: true }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, name: error.name, message: error.message }));
}
process.exit(0);
`;

function openFromAnotherProcess(dataDir: string, scriptDir: string): Promise<{ ok: boolean; name?: string; message?: string }> {
  const script = join(scriptDir, "open-child.mts");
  writeFileSync(script, CHILD_SCRIPT);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, dataDir], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("exit", () => {
      const line = out.trim().split("\n").pop() ?? "";
      try {
        resolvePromise(JSON.parse(line) as { ok: boolean });
      } catch {
        reject(new Error(`child printed no result.\nstdout: ${out}\nstderr: ${err}`));
      }
    });
  });
}

describe("embedded data folder ownership", () => {
  // One folder for these tests: creating a PGlite data folder takes seconds.
  let dir: string;
  let dataDir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ace-lock-"));
    dataDir = join(dir, "data");
    await openDatabase({ kind: "pglite", dataDir }).then((handle) => handle.close());
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a second process while the first holds the folder, and lets it in after", async () => {
    const first = await openDatabase({ kind: "pglite", dataDir });
    try {
      expect(readLiveLock(dataDir)).toMatchObject({ pid: process.pid });
      setLockUrl("http://localhost:3999");
      expect(JSON.parse(readFileSync(lockPath(dataDir), "utf8"))).toMatchObject({ pid: process.pid, url: "http://localhost:3999" });

      const refused = await openFromAnotherProcess(dataDir, dir);
      expect(refused).toMatchObject({ ok: false, name: "DatabaseBusyError" });
      expect(refused.message).toContain(`pid ${process.pid}`);
      expect(refused.message).toContain("http://localhost:3999");
      expect(refused.message).toContain("DATA_DIR");
    } finally {
      await first.close();
    }
    expect(readLiveLock(dataDir)).toBeNull();
    expect(await openFromAnotherProcess(dataDir, dir)).toEqual({ ok: true });
  });

  it("takes over a stale lock left by a dead process", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    writeFileSync(lockPath(dataDir), JSON.stringify({ pid: dead, startedAt: "2020-01-01T00:00:00.000Z" }));
    expect(readLiveLock(dataDir)).toBeNull();

    const handle = await openDatabase({ kind: "pglite", dataDir });
    try {
      expect(readLiveLock(dataDir)).toMatchObject({ pid: process.pid });
      expect(await handle.db.playbook.count()).toBe(0);
    } finally {
      await handle.close();
    }
  });

  it("throws DatabaseBusyError in-process when a live process holds the lock", async () => {
    const parent = process.ppid; // alive for the whole test
    writeFileSync(lockPath(dataDir), JSON.stringify({ pid: parent, startedAt: "2020-01-01T00:00:00.000Z" }));
    try {
      await expect(openDatabase({ kind: "pglite", dataDir })).rejects.toBeInstanceOf(DatabaseBusyError);
    } finally {
      rmSync(lockPath(dataDir));
    }
  });

  it("shares one PGlite between two opens of the same folder in one process", async () => {
    const a = await openDatabase({ kind: "pglite", dataDir });
    const b = await openDatabase({ kind: "pglite", dataDir });
    expect(b.pglite).toBe(a.pglite);
    await a.db.playbook.create({ data: { name: "shared" } });
    await a.close();
    expect(await b.db.playbook.count()).toBe(1); // still open: b holds a reference
    await b.db.playbook.deleteMany();
    await b.close();
    expect(readLiveLock(dataDir)).toBeNull();
  });
});

describe("the app server's database", () => {
  it("is opened once for concurrent first callers, in DATA_DIR, and holds its lock", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ace-getdb-"));
    const previous = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL };
    process.env.DATA_DIR = dataDir;
    delete process.env.DATABASE_URL;
    try {
      const [a, b] = await Promise.all([getDb(), getDb()]);
      expect(a).toBe(b);
      expect(await getDb()).toBe(a);
      expect(await a.playbook.count()).toBe(0);
      expect(readLiveLock(dataDir)).toMatchObject({ pid: process.pid });
    } finally {
      await closeDb();
      Object.assign(process.env, previous);
      if (previous.DATA_DIR === undefined) delete process.env.DATA_DIR;
      if (previous.DATABASE_URL === undefined) delete process.env.DATABASE_URL;
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(readLiveLock(dataDir)).toBeNull();
  });
});

describe.runIf(testEngines().includes("postgres"))("several processes on one PostgreSQL database", () => {
  // The schema engine's migration lock (PostgreSQL advisory lock 72707369).
  const MIGRATION_LOCK = 72707369;

  it("a migrated, running app holds no migration lock, so a second app and the CLI open the database at once", async () => {
    const url = inject("testPostgresUrl")!;
    const first = await openDatabase({ kind: "postgres", url });
    try {
      // The pool's connections keep serving queries, as the job worker's do.
      await Promise.all(Array.from({ length: 5 }, () => first.db.$queryRaw`SELECT 1 AS one FROM pg_sleep(0.01)`));
      const held = await first.db.$queryRaw<{ pid: number }[]>`
        SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = ${MIGRATION_LOCK}::oid AND granted`;
      expect(held).toEqual([]);

      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("the second open waited for the migration lock")), 20_000);
      });
      const second = await Promise.race([openDatabase({ kind: "postgres", url }), waited]).finally(() => clearTimeout(timer));
      await second.close();
    } finally {
      await first.close();
    }
  });
});

describe("configuration", () => {
  it("reads PostgreSQL, embedded and invalid settings from the environment", () => {
    expect(databaseConfigFromEnv({ DATABASE_URL: "postgresql://u@h:5432/db" })).toEqual({
      kind: "postgres",
      url: "postgresql://u@h:5432/db",
    });
    expect(databaseConfigFromEnv({ DATABASE_URL: "postgres://u@h/db" })).toMatchObject({ kind: "postgres" });
    expect(databaseConfigFromEnv({})).toEqual({ kind: "pglite", dataDir: resolve(".data") });
    expect(databaseConfigFromEnv({ DATA_DIR: "tmp/x" })).toEqual({ kind: "pglite", dataDir: resolve("tmp/x") });
    expect(() => databaseConfigFromEnv({ DATABASE_URL: "mysql://u@h/db" })).toThrow(/DATABASE_URL must be a PostgreSQL URL.*"mysql:"/);
  });
});

describe("authoring migrations", () => {
  it("reports no changes when schema.prisma matches the migrations", async () => {
    expect(await createMigration("nothing_new")).toEqual({ status: "no changes" });
  });
});
