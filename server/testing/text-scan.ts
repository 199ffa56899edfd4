// Where a string is stored: every text, varchar, json/jsonb and text[] column of every table of the
// current schema, discovered from information_schema (a column added later is scanned too). The
// erasure tests ask it for a marker they put in a trace; `query` runs SQL on either engine.

export type RunQuery = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

const TEXT_COLUMNS = `
  SELECT c.table_name AS "table", c.column_name AS "column"
  FROM information_schema.columns c
  JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
  WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> '_prisma_migrations'
    AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
      OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar', '_bpchar', '_json', '_jsonb')))
  ORDER BY 1, 2`;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The text columns of the schema, as "Table.column". */
export async function textColumns(query: RunQuery): Promise<{ table: string; column: string }[]> {
  return (await query(TEXT_COLUMNS, [])).map((row) => ({ table: String(row.table), column: String(row.column) }));
}

/** "Table.column (n rows)" for every text column holding `needle` anywhere in its text form. */
export async function columnsHolding(query: RunQuery, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const { table, column } of await textColumns(query)) {
    const [row] = await query(`SELECT count(*)::int AS n FROM ${quoted(table)} WHERE strpos(${quoted(column)}::text, $1) > 0`, [needle]);
    const n = Number(row?.n ?? 0);
    if (n > 0) found.push(`${table}.${column} (${n} rows)`);
  }
  return found;
}
