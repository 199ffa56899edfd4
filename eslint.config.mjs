// Lint rules, including the ones that state the architecture (import boundaries), so a reviewer
// need not. `npm run lint` runs it; `npm test` runs it first.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";

/** Prisma client calls: `db.bullet.findMany(…)`, `tx.$queryRaw…`. Only repositories make them. */
const PRISMA_CALL =
  "CallExpression > MemberExpression.callee[object.type='MemberExpression'][object.object.name=/^(db|tx|prisma)$/]" +
  "[property.name=/^(findMany|findFirst|findFirstOrThrow|findUnique|findUniqueOrThrow|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy)$/]";
const RAW_SQL =
  "MemberExpression[object.name=/^(db|tx|prisma)$/][property.name=/^\\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe)$/]";

const FRAMEWORKS = [
  { group: ["next", "next/*", "react", "react-dom", "react/*"], message: "server/ace is the pure ACE core: no framework imports." },
  {
    group: ["@prisma/*", "pg", "@electric-sql/*", "pglite-prisma-adapter"],
    message: "server/ace is the pure ACE core: no database imports.",
  },
  {
    group: ["@trpc/*", "openai", "server-only"],
    message: "server/ace is the pure ACE core: no server glue; take what you need as an argument.",
  },
];

/** server/ace may import from server/ only what `except` names (relative to server/). */
function aceZones(except) {
  const message = "server/ace imports nothing from other server folders, app/ or components/.";
  return [
    { target: "./server/ace", from: "./server", except, message },
    { target: "./server/ace", from: "./app", message },
    { target: "./server/ace", from: "./components", message },
  ];
}

/**
 * The folders of components/ in layers, lowest first. A folder imports from itself and from the
 * layers below it, never from its own layer or one above, so the folder graph has no cycle.
 * Two domains that need the same piece take it from shared/ (or ui/ when it knows no domain); a page
 * that shows two domains composes them in app/.
 */
const COMPONENT_LAYERS = [
  ["ui"], // primitives that know no domain
  ["trpc"], // the client's tRPC glue
  ["shared"], // what several domains use: labels, URL state, badges, filters, the traces table
  ["auth"], // the session and its permissions, which every domain may ask
  ["admin", "deltas", "evolution", "experiments", "history", "runs", "traces"], // the domains
  ["playbooks", "retention"], // a bullet's sheet shows its lineage (history); retention heads the admin pages (admin)
];

/** import/no-restricted-paths zones for the layers; a folder missing from them stops the lint. */
function componentZones() {
  const listed = COMPONENT_LAYERS.flat();
  const found = readdirSync(new URL("./components", import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const missing = found.map((entry) => entry.name).filter((name) => !listed.includes(name));
  if (missing.length > 0) {
    throw new Error(`components/${missing[0]} is in no layer: add it to COMPONENT_LAYERS in eslint.config.mjs.`);
  }
  return COMPONENT_LAYERS.flatMap((layer, index) => {
    const below = COMPONENT_LAYERS.slice(0, index).flat();
    return layer.map((folder) => ({
      target: `./components/${folder}`,
      from: "./components",
      except: [folder, ...below].map((name) => `./${name}`),
      message: `components/${folder} imports only from itself and the layers below it (${below.join(", ") || "none"}); see COMPONENT_LAYERS in eslint.config.mjs.`,
    }));
  });
}

const config = [
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "server/db/generated/**",
      ".data/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
    ],
  },
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    // Packages are not parsed for the import rules (PGlite's bundle overflows the parser's stack).
    settings: { "import/ignore": ["node_modules"] },
    rules: {
      "import/no-cycle": ["error", { ignoreExternal: true }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/ban-ts-comment": [
        "error",
        { "ts-ignore": "allow-with-description", "ts-expect-error": "allow-with-description" },
      ],
    },
  },
  // The ACE core is pure TypeScript.
  {
    files: ["server/ace/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: FRAMEWORKS }],
      "import/no-restricted-paths": ["error", { zones: aceZones(["./ace"]) }],
    },
  },
  // Its tests may also read the fixture files of server/testing.
  {
    files: ["server/ace/**/*.test.ts"],
    rules: { "import/no-restricted-paths": ["error", { zones: aceZones(["./ace", "./testing"]) }] },
  },
  // Components reach the server through tRPC; they may import schemas (zod and types) only.
  {
    files: ["components/**/*.{ts,tsx}", "app/**/*.tsx"],
    ignores: ["app/api/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@/server/(?!(?:[^/]+/schemas|trpc/root|trpc/rsc|ace/text/format)$)",
              message:
                "Components import server code only from a domain's schemas.ts (zod schemas and types) and the pure number wording (server/ace/text/format.ts); data comes through tRPC.",
            },
          ],
        },
      ],
    },
  },
  // The folders of components/ depend on each other in layers, never in a circle.
  {
    files: ["components/**/*.{ts,tsx}"],
    rules: {
      "import/no-restricted-paths": ["error", { basePath: fileURLToPath(new URL(".", import.meta.url)), zones: componentZones() }],
    },
  },
  // Server code has no React: a function named use… there is not a hook.
  {
    files: ["server/**/*.ts"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  // Only repositories (and the database glue, tests and benchmarks) call Prisma.
  {
    files: ["server/**/*.ts", "app/**/*.{ts,tsx}"],
    ignores: [
      "server/**/repository.ts",
      "server/**/repositories/*.ts",
      "server/db/**",
      "server/testing/**",
      "server/bench/**",
      "server/**/*.test.ts",
      // The auth library's own database adapter is the one stated exception.
      "server/auth/adapter.ts",
    ],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: PRISMA_CALL, message: "Prisma calls live in a repository (server/<domain>/repository.ts)." },
        { selector: RAW_SQL, message: "SQL lives in a repository (server/<domain>/repository.ts)." },
      ],
    },
  },
];

export default config;
