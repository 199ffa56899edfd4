// Lint rules, including the ones that state the architecture (import boundaries), so a reviewer
// need not. `npm run lint` runs it; `npm test` runs it first.
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
