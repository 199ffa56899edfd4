// Prisma CLI configuration. Only `prisma generate` is run through the CLI here (see
// server/db/generate.mjs); migrations go through server/db/migrate.ts, which reads the same paths.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  // Only passed on when set, so generate keeps working without a database.
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
