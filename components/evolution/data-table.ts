// The numbers behind a chart as one table: what "Show data" lists and what the CSV download holds,
// so the two cannot disagree. Cells keep raw values (ISO instants, unrounded rates, dollars); only
// the on-screen table formats them.

export type Cell = number | string | null;

/**
 * How a column reads on screen. bucket: a bucket start (ISO) in the reader's zone; instant: a time;
 * count: a whole number; rate: 0–1 as a percent; usd: dollars; ms: a duration; text: as is.
 */
export type ColumnKind = "bucket" | "instant" | "count" | "number" | "rate" | "usd" | "ms" | "text";

export interface DataColumn {
  key: string;
  label: string;
  kind: ColumnKind;
}

export interface DataTableModel {
  /** The table's accessible name, and the CSV's file name stem. */
  title: string;
  columns: DataColumn[];
  rows: Record<string, Cell>[];
  /** Per row, links by column key (the traces of a bucket, a version's diff); not in the CSV. */
  links?: (Record<string, string> | undefined)[];
}

/** The fields of Row that can be a cell as they are. */
type CellField<Row> = { [K in keyof Row & string]-?: Row[K] extends Cell ? K : never }[keyof Row & string];

/**
 * A column and where its cells come from: `value(row)`, or else the row's field of the same key.
 * Declaring both together keeps a column's label and its numbers from drifting apart.
 */
export type ColumnOf<Row> = DataColumn & ({ key: CellField<Row>; value?: never } | { value: (row: Row) => Cell });

/** The bucket column every per-bucket table starts with. */
export const BUCKET_START_COLUMN = { key: "start", label: "Bucket start", kind: "bucket" } as const;

/** A table of one row per item, each column filled by its own rule. */
export function tableOf<Row>(title: string, columns: readonly ColumnOf<Row>[], rows: readonly Row[]): DataTableModel {
  return {
    title,
    columns: columns.map(({ key, label, kind }) => ({ key, label, kind })),
    rows: rows.map((row) => Object.fromEntries(columns.map((column) => [column.key, cellOf(column, row)]))),
  };
}

function cellOf<Row>(column: ColumnOf<Row>, row: Row): Cell {
  // Without `value`, the key is a field whose type is a Cell (CellField), so the cast holds.
  return column.value ? column.value(row) : ((row[column.key as keyof Row] as Cell | undefined) ?? null);
}

/** RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. */
function csvField(value: Cell): string {
  if (value === null) return "";
  const text = typeof value === "number" ? csvNumber(value) : value;
  // A leading =, +, - or @ would run as a formula in a spreadsheet: prefix a quote (OWASP's advice).
  const safe = typeof value === "string" && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Numbers as JavaScript prints them, never in exponent form (1e-7 reads badly in a spreadsheet). */
function csvNumber(value: number): string {
  if (!Number.isFinite(value)) return "";
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
}

/** The table as CSV: a header of column labels, then one line per row; lines end with CRLF. */
export function toCsv(table: Pick<DataTableModel, "columns" | "rows">): string {
  const lines = [table.columns.map((column) => csvField(column.label)).join(",")];
  for (const row of table.rows) lines.push(table.columns.map((column) => csvField(row[column.key] ?? null)).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** "Outcomes · Refunds 2026-11-01" → "outcomes-refunds-2026-11-01.csv". */
export function csvFileName(title: string): string {
  const stem = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  return `${stem || "data"}.csv`;
}
