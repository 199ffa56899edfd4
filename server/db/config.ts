// Which database the app uses: PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite in a
// data folder (DATA_DIR, default ./.data). The variables are read and checked in server/config/env.ts.
import { resolve } from "node:path";
import { ConfigError, getEnv, loadEnv, MEMORY_DATA_DIR, type DatabaseConfig, type EnvSource } from "@/server/config/env";

export { MEMORY_DATA_DIR, type DatabaseConfig };
/** A bad DATABASE_URL or DATA_DIR is a ConfigError like any other setting's. */
export { ConfigError as DatabaseConfigError };

/** The database settings of this process (read once), or of `source` when given. */
export function databaseConfigFromEnv(source?: EnvSource): DatabaseConfig {
  return (source ? loadEnv(source) : getEnv()).database;
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
