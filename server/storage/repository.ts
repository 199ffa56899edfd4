// Every database call of the storage report: sizes from PostgreSQL's catalog, rows counted exactly.
import { Prisma, type DbOrTx } from "@/server/db/client";

/** The schema's tables with their size on disk, indexes and TOAST included. */
export function findTableSizes(db: DbOrTx) {
  return db.$queryRaw<{ table: string; bytes: number; indexBytes: number }[]>`
    SELECT c.relname AS "table", pg_total_relation_size(c.oid)::float8 AS bytes, pg_indexes_size(c.oid)::float8 AS "indexBytes"
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname NOT LIKE '\\_prisma%'
    ORDER BY bytes DESC, c.relname`;
}

/** Exact row counts of these tables (names from the catalog, quoted as identifiers), in one statement. */
export async function countRows(db: DbOrTx, tables: string[]): Promise<Map<string, number>> {
  if (tables.length === 0) return new Map();
  const parts = tables.map(
    (table) => Prisma.sql`SELECT ${table} AS "table", count(*)::float8 AS rows FROM ${Prisma.raw(`"${table.replaceAll('"', '""')}"`)}`,
  );
  const rows = await db.$queryRaw<{ table: string; rows: number }[]>`${Prisma.join(parts, " UNION ALL ")}`;
  return new Map(rows.map((row) => [row.table, row.rows]));
}

export async function databaseBytes(db: DbOrTx): Promise<number | null> {
  const [row] = await db.$queryRaw<{ bytes: number | null }[]>`SELECT pg_database_size(current_database())::float8 AS bytes`;
  return row?.bytes ?? null;
}

/** Per playbook and table: rows and their stored size. Tables without a playbook column reach it through their parent. */
export function findPlaybookRows(db: DbOrTx) {
  return db.$queryRaw<{ playbookId: string; table: string; rows: number; bytes: number }[]>`
    SELECT "playbookId"::text AS "playbookId", "table", rows::float8 AS rows, bytes::float8 AS bytes FROM (
      SELECT t."playbookId", 'Trace' AS "table", count(*) AS rows, sum(pg_column_size(t.*)) AS bytes FROM "Trace" t GROUP BY 1
      UNION ALL SELECT t."playbookId", 'Bullet', count(*), sum(pg_column_size(t.*)) FROM "Bullet" t GROUP BY 1
      UNION ALL SELECT t."playbookId", 'PlaybookVersion', count(*), sum(pg_column_size(t.*)) FROM "PlaybookVersion" t GROUP BY 1
      UNION ALL SELECT t."playbookId", 'Delta', count(*), sum(pg_column_size(t.*)) FROM "Delta" t GROUP BY 1
      UNION ALL SELECT d."playbookId", 'DeltaOperation', count(*), sum(pg_column_size(o.*))
        FROM "DeltaOperation" o JOIN "Delta" d ON d.id = o."deltaId" GROUP BY 1
      UNION ALL SELECT t."playbookId", 'Run', count(*), sum(pg_column_size(t.*)) FROM "Run" t GROUP BY 1
      UNION ALL SELECT t."playbookId", 'TraceHourly', count(*), sum(pg_column_size(t.*)) FROM "TraceHourly" t GROUP BY 1
      UNION ALL SELECT t."playbookId", 'RunHourly', count(*), sum(pg_column_size(t.*)) FROM "RunHourly" t GROUP BY 1
      UNION ALL SELECT e."playbookId", 'ExperimentExposure', count(*), sum(pg_column_size(x.*))
        FROM "ExperimentExposure" x JOIN "Experiment" e ON e.id = x."experimentId" GROUP BY 1
      UNION ALL SELECT t."playbookId", 'AuditEntry', count(*), sum(pg_column_size(t.*)) FROM "AuditEntry" t WHERE t."playbookId" IS NOT NULL GROUP BY 1
    ) per_table`;
}

export function findPlaybookNames(db: DbOrTx) {
  return db.playbook.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
}
