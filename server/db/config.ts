// Which database the app uses, read from the environment: PostgreSQL when DATABASE_URL is set,
// otherwise embedded PGlite in a data folder (DATA_DIR, default ./.data).
import { resolve } from "node:path";

export type DatabaseConfig =
  | { kind: "postgres"; url: string }
  /** dataDir ":memory:" means an in-memory PGlite (tests); otherwise files live in <dataDir>/pglite. */
  | { kind: "pglite"; dataDir: string };

export const MEMORY_DATA_DIR = ":memory:";

export class DatabaseConfigError extends Error {
  override name = "DatabaseConfigError";
}

export function databaseConfigFromEnv(env: Record<string, string | undefined> = process.env): DatabaseConfig {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    if (/^postgres(ql)?:\/\//i.test(url)) return { kind: "postgres", url };
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
    throw new DatabaseConfigError(
      `DATABASE_URL must be a PostgreSQL URL (postgres://… or postgresql://…), ` +
        `but it ${scheme ? `uses "${scheme}:"` : "is not a URL"}. ` +
        "Unset DATABASE_URL to use the embedded database in DATA_DIR (default ./.data).",
    );
  }
  const dataDir = env.DATA_DIR?.trim();
  if (dataDir === MEMORY_DATA_DIR) return { kind: "pglite", dataDir };
  return { kind: "pglite", dataDir: resolve(dataDir || ".data") };
}

/** The PGlite files of an embedded data folder. */
export function pgliteDir(dataDir: string): string {
  return resolve(dataDir, "pglite");
}

/** A description safe to print: no password. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.kind === "pglite") {
    return config.dataDir === MEMORY_DATA_DIR ? "embedded PGlite (in memory)" : `embedded PGlite in ${pgliteDir(config.dataDir)}`;
  }
  try {
    const u = new URL(config.url);
    if (u.password) u.password = "***";
    return `PostgreSQL at ${u.toString()}`;
  } catch {
    return "PostgreSQL (DATABASE_URL)";
  }
}
