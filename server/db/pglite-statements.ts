// Named prepared statements for the Prisma adapter's queries on PGlite (which are kept: prepared.ts).
// PGlite's query() sends every statement unnamed, in six calls into PostgreSQL (parse, describe,
// bind, describe, execute, sync), so each statement was parsed and planned again at every run: 2 of
// the 15 ms an apply spent in SQL went to parsing and 3 to planning. Here each text is parsed once
// under a name of its own, and a run is one call: bind, describe, execute and sync. PostgreSQL plans
// a kept statement again by itself after a schema change.
import { parse, protocol, type PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";
import { createByteBoundedCache } from "@/server/cache/lru";
import { keepsStatement } from "./prepared";

const { serialize } = protocol;

/** Statements kept per instance; past it the least recently used is closed. */
export const MAX_PREPARED_STATEMENTS = 256;
/** What a kept statement holds in PostgreSQL's memory (measured in pg_backend_memory_contexts). */
const STATEMENT_BYTES = 20 * 1024;

/**
 * PostgreSQL's answer when a kept statement's result columns changed under it (a table altered after
 * the statement was prepared). Outside a transaction the statement is prepared again and run once
 * more; inside one the transaction has failed, and the error stands.
 */
function resultTypeChanged(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === "0A000" && typeof message === "string" && message.includes("cached plan must not change result type");
}

interface Prepared {
  name: string;
  /** The parameters' type OIDs, as PostgreSQL inferred them. */
  paramTypes: number[];
}

type Query = <T>(sql: string, params?: unknown[], options?: QueryOptions) => Promise<Results<T>>;

/** Queries run as PGlite's query() and a transaction's query() run them, from statements prepared once. */
export interface PreparedQueries {
  /** In place of pglite.query: waits for a transaction under way, as PGlite's does. */
  query: Query;
  /** In place of a transaction's query(), inside it; `own` runs what is not prepared. */
  inTransaction(own: Query): Query;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const message = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

/**
 * Prepared queries for `pglite`, whose own query() is `query`: it runs what is not prepared (what
 * keepsStatement refuses, COPY with a blob, given parameter types). Statements are named "ace_s" and
 * a number: nothing else may name statements on the instance.
 */
export function preparedQueries(pglite: PGlite, query: Query, { max = MAX_PREPARED_STATEMENTS } = {}): PreparedQueries {
  let toClose: string[] = [];
  // Whatever leaves (evicted, or dropped after a schema change) is closed with the next parse.
  const statements = createByteBoundedCache<string, Prepared>({
    maxBytes: max * STATEMENT_BYTES,
    sizeOf: () => STATEMENT_BYTES,
    onRemove: (prepared) => void toClose.push(prepared.name),
  });
  let counter = 0;

  const send = (parts: readonly Uint8Array[], options: QueryOptions | undefined) =>
    pglite.execProtocolStream(concat(parts), { syncToFs: false, onNotice: options?.onNotice });

  /** Parses `sql` under a new name, closing the statements evicted since the last parse first. */
  async function prepare(sql: string, options: QueryOptions | undefined): Promise<Prepared> {
    const name = `ace_s${(counter += 1)}`;
    const closes = toClose.map((old) => serialize.close({ type: "S", name: old }));
    toClose = [];
    const messages = await send(
      [...closes, serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()],
      options,
    );
    const prepared = { name, paramTypes: parse.parseDescribeStatementResults(messages) };
    statements.set(sql, prepared);
    return prepared;
  }

  async function execute<T>(prepared: Prepared, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
    // As PGlite's query() serializes them: by the type PostgreSQL inferred for each parameter.
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const type = prepared.paramTypes[index] as number;
      const serializer = options?.serializers?.[type] ?? pglite.serializers[type];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await send(
      [serialize.bind({ statement: prepared.name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()],
      options,
    );
    return parse.parseResults(messages, pglite.parsers, options)[0] as Results<T>;
  }

  /** Takes PGlite's query lock, as its query() does; a transaction's lock is the caller's to take. */
  const run = <T>(sql: string, params: readonly unknown[], options: QueryOptions | undefined): Promise<Results<T>> =>
    pglite.runExclusive(async () => {
      const prepared = statements.get(sql) ?? (await prepare(sql, options));
      let result: Results<T>;
      try {
        result = await execute<T>(prepared, params, options);
      } catch (error) {
        if (!resultTypeChanged(error) || pglite.isInTransaction()) throw error;
        statements.delete(sql);
        result = await execute<T>(await prepare(sql, options), params, options);
      }
      // As PGlite's query() does: a statement outside a transaction is written through at once.
      if (!pglite.isInTransaction()) await pglite.syncToFs();
      return result;
    });

  const prepares = (sql: string, params: readonly unknown[], options: QueryOptions | undefined) =>
    !options?.blob && !options?.paramTypes && keepsStatement(sql, params);
  return {
    query: async <T>(sql: string, params: unknown[] = [], options?: QueryOptions) => {
      if (!prepares(sql, params, options)) return query<T>(sql, params, options);
      await pglite._checkReady();
      return pglite._runExclusiveTransaction(() => run<T>(sql, params, options));
    },
    inTransaction:
      (own) =>
      <T>(sql: string, params: unknown[] = [], options?: QueryOptions) =>
        prepares(sql, params, options) ? run<T>(sql, params, options) : own<T>(sql, params, options),
  };
}
