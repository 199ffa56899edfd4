// Which statements are prepared once and kept, on both engines, and their names on PostgreSQL. An
// unnamed statement is parsed and planned at every run; the app's statements are a few texts run
// over and over, so those are kept under a name, and PostgreSQL keeps a generic plan for one once it
// does as well as custom ones (plan_cache_mode auto). PGlite: pglite-statements.ts.

/** Statements that PostgreSQL plans; anything else (DDL, SET, transaction control) runs unnamed. */
const PLANNED = /^\s*(?:select|insert|update|delete|with|values)\b/i;

/**
 * A generic plan takes an array or a JSON document of rows for a hundred rows: right for the deltas
 * of a curation, wrong for an import's thousand (a nested loop where a hash join belongs). A
 * statement with a parameter this large runs unnamed, planned for its values.
 */
const LARGE_ARRAY = 1_000;
const LARGE_TEXT = 64 * 1024;

function isLarge(value: unknown): boolean {
  return (Array.isArray(value) && value.length > LARGE_ARRAY) || (typeof value === "string" && value.length > LARGE_TEXT);
}

/** Whether a run of `sql` with `params` may use a kept statement. */
export function keepsStatement(sql: string, params: readonly unknown[]): boolean {
  return PLANNED.test(sql) && !params.some(isLarge);
}

/** Names kept per connection at most (about 20 KB each in PostgreSQL). */
export const MAX_STATEMENT_NAMES = 256;
/** Characters of the texts run once so far, past which they are forgotten (a byte bound: 2 MB). */
const MAX_SEEN_ONCE_CHARS = 1_000_000;

/**
 * Statement names for the PostgreSQL adapter (its statementNameGenerator): node-postgres parses a
 * named statement once per connection and never closes it, so the names are bounded. A text is named
 * at its second run (texts made once, as an IN list of a given length, stay unnamed) and keeps its
 * name; once `max` texts are named, others run unnamed (""). A name is never given to another text.
 */
export function statementNames({ max = MAX_STATEMENT_NAMES } = {}): (query: { sql: string; args: unknown[] }) => string {
  const names = new Map<string, string>();
  const seenOnce = new Set<string>();
  let seenChars = 0;
  return ({ sql, args }) => {
    if (!keepsStatement(sql, args)) return "";
    const name = names.get(sql);
    if (name !== undefined) return name;
    if (names.size >= max) return "";
    if (!seenOnce.has(sql)) {
      if (seenChars + sql.length > MAX_SEEN_ONCE_CHARS) {
        seenOnce.clear();
        seenChars = 0;
      }
      seenOnce.add(sql);
      seenChars += sql.length;
      return "";
    }
    seenOnce.delete(sql);
    seenChars -= sql.length;
    const named = `ace_q${names.size + 1}`;
    names.set(sql, named);
    return named;
  };
}
