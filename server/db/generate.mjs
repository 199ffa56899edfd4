// postinstall: generates the Prisma client into server/db/generated without downloading anything.
// The Prisma CLI insists on a schema-engine binary at start-up even though `generate` only uses
// WebAssembly; pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies that check.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);

function fail(message) {
  console.error(`\n[db:generate] ${message}\n`);
  process.exit(1);
}

let prismaCli;
try {
  prismaCli = join(dirname(require.resolve("prisma/package.json")), "build", "index.js");
} catch {
  fail("The `prisma` package is not installed. Run `npm install` (or `npm ci`) in the project root.");
}
if (!existsSync(prismaCli)) fail(`The Prisma CLI entry point is missing: ${prismaCli}. Reinstall with \`npm ci\`.`);

// Keep a binary the user configured on purpose; otherwise any existing file will do (this one).
const engineBinary =
  process.env.PRISMA_SCHEMA_ENGINE_BINARY && existsSync(process.env.PRISMA_SCHEMA_ENGINE_BINARY)
    ? process.env.PRISMA_SCHEMA_ENGINE_BINARY
    : fileURLToPath(import.meta.url);

const started = Date.now();
const result = spawnSync(process.execPath, [prismaCli, "generate", "--schema", "prisma/schema.prisma"], {
  cwd: root,
  stdio: ["ignore", "pipe", "pipe"],
  encoding: "utf8",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: engineBinary,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
    PRISMA_DISABLE_WARNINGS: "1",
  },
});

if (result.error) fail(`Could not run the Prisma CLI: ${result.error.message}`);
if (result.status !== 0) {
  process.stderr.write(result.stdout ?? "");
  process.stderr.write(result.stderr ?? "");
  fail(
    `\`prisma generate\` failed (exit code ${result.status ?? result.signal}). ` +
      "See the output above; a schema error in prisma/schema.prisma is the usual cause.",
  );
}
const generated = join(root, "server", "db", "generated");
if (!existsSync(generated)) fail(`\`prisma generate\` reported success but ${generated} does not exist.`);
console.log(`[db:generate] Prisma client generated in server/db/generated (${Date.now() - started} ms)`);
