// Integration-test run setup: a fresh PostgreSQL database for this run only, migrated once,
// dropped at the end. Tests get its URL through inject("testPostgresUrl") (see ./db.ts).
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { applyMigrations } from "../db/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    /** This run's PostgreSQL database; absent when PostgreSQL was unreachable (suites skip). */
    testPostgresUrl?: string;
    /** Why the PostgreSQL suites are skipped. */
    testPostgresSkipReason?: string;
  }
}

const DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const START_HINT = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start";
/** Databases of crashed runs older than this are dropped; never those of runs still going. */
const LEFTOVER_AGE_MS = 24 * 60 * 60 * 1000;

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}

async function admin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  const adminUrl = process.env.TEST_POSTGRES_URL || DEFAULT_ADMIN_URL;
  const database = `ace_test_${Date.now()}_${randomBytes(4).toString("hex")}`;

  try {
    await admin(adminUrl, async (client) => {
      await dropLeftovers(client);
      await client.query(`CREATE DATABASE "${database}"`);
    });
  } catch (error) {
    const reason =
      `PostgreSQL is not reachable at ${redact(adminUrl)} (${(error as Error).message}). ` +
      `Start it with: ${START_HINT} (or set TEST_POSTGRES_URL).`;
    if (process.env.CI === "true") throw new Error(`Integration tests need PostgreSQL. ${reason}`);
    console.warn(`\n⚠ Skipping the PostgreSQL integration suites: ${reason}\n`);
    project.provide("testPostgresSkipReason", reason);
    return;
  }

  const url = withDatabase(adminUrl, database);
  const drop = () => admin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  try {
    await applyMigrations({ kind: "postgres", url });
  } catch (error) {
    await drop();
    throw error;
  }
  project.provide("testPostgresUrl", url);
  return async () => {
    await drop();
  };
}

async function dropLeftovers(client: pg.Client) {
  const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'ace\\_test\\_%'`);
  for (const { datname } of rows) {
    const startedAt = Number(/^ace_test_(\d+)_/.exec(datname)?.[1]);
    if (startedAt && Date.now() - startedAt > LEFTOVER_AGE_MS) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
    }
  }
}
