// `npm run db:migrate` applies pending migrations to the configured database;
// `npm run db:migration -- <name>` authors a new migration from schema.prisma (no database needed).
import { plural } from "@/server/ace/text/format";
import { databaseConfigFromEnv, describeDatabase } from "./config";
import { applyMigrations, createMigration, markMigrationRolledBack } from "./migrate";

const USAGE = "Usage: tsx server/db/cli.ts migrate | create <name> | rolled-back <migration folder name>";

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === "migrate") {
    const config = databaseConfigFromEnv();
    const started = Date.now();
    const applied = await applyMigrations(config);
    const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (applied.length === 0) {
      console.log(`Database is up to date (${describeDatabase(config)}, ${took}).`);
    } else {
      console.log(`Applied ${plural(applied.length, "migration")} to ${describeDatabase(config)} (${took}):`);
      for (const name of applied) console.log(`  ${name}`);
    }
    return 0;
  }
  if (command === "create") {
    const name = rest.join("_");
    if (!name) {
      console.error("Give the new migration a name: npm run db:migration -- <name>, e.g. add_trace_tags");
      return 1;
    }
    const result = await createMigration(name);
    if (result.status === "no changes") {
      console.log("No changes: prisma/schema.prisma matches the migrations in prisma/migrations. Nothing written.");
    } else {
      console.log(`Created ${result.path}/migration.sql. Review it, then run npm run db:migrate.`);
    }
    return 0;
  }
  if (command === "rolled-back" && rest.length === 1) {
    const config = databaseConfigFromEnv();
    await markMigrationRolledBack(config, rest[0]!);
    console.log(`Marked ${rest[0]} as rolled back in ${describeDatabase(config)}. Run npm run db:migrate to apply it again.`);
    return 0;
  }
  console.error(USAGE);
  return 1;
}

// Exit explicitly: the schema engine and PGlite can leave handles that would keep Node running.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`\n${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    process.exit(1);
  },
);
