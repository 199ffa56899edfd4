import { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { preparedQueries, type PreparedQueries } from "./pglite-statements";

interface Kept {
  statement: string;
  runs: number;
}

/** The instance's named statements, with how often each ran (its generic and custom plans). */
async function kept(pglite: PGlite): Promise<Kept[]> {
  const { rows } = await pglite.query<Kept>(
    "SELECT statement, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements ORDER BY prepare_time, name",
  );
  return rows;
}

describe("prepared statements on PGlite", () => {
  let pglite: PGlite | undefined;
  afterEach(async () => {
    await pglite?.close();
    pglite = undefined;
  });

  async function open(max?: number): Promise<{ db: PGlite; prepared: PreparedQueries }> {
    const db = new PGlite();
    pglite = db;
    await db.exec("CREATE TABLE item (id int PRIMARY KEY, label text NOT NULL)");
    return { db, prepared: preparedQueries(db, db.query.bind(db), max === undefined ? {} : { max }) };
  }

  it("parses a statement once and runs it again by name, with its parameters serialized by their inferred types", async () => {
    const { db, prepared } = await open();
    const insert = "INSERT INTO item (id, label) VALUES ($1, $2)";
    for (const [id, label] of [
      [1, "one"],
      [2, "two's"],
      [3, "trois"],
    ] as const) {
      await prepared.query(insert, [id, label]);
    }
    const select = "SELECT id, label, $2::jsonb AS doc, $3::timestamptz AS at FROM item WHERE id > $1 ORDER BY id";
    const at = new Date("2026-11-29T13:04:05.678Z");
    const { rows } = await prepared.query(select, [1, { a: [1, 2.5] }, at]);
    expect(rows).toEqual([
      { id: 2, label: "two's", doc: { a: [1, 2.5] }, at },
      { id: 3, label: "trois", doc: { a: [1, 2.5] }, at },
    ]);
    // The same answer as PGlite's own query().
    expect(rows).toEqual((await db.query(select, [1, { a: [1, 2.5] }, at])).rows);
    expect(await kept(db)).toEqual([
      { statement: insert, runs: 3 },
      { statement: select, runs: 1 },
    ]);
  });

  it("keeps at most `max` statements, closing the least recently used, and prepares an evicted one again", async () => {
    const { db, prepared } = await open(2);
    const texts = [1, 2, 3, 4, 5].map((n) => `SELECT ${n} AS n`);
    await prepared.query(texts[0] as string);
    for (const text of texts) await prepared.query(text);
    // An eviction is closed with the next statement prepared: one more than max at most.
    const statements = (await kept(db)).map((row) => row.statement);
    expect(statements.length).toBeLessThanOrEqual(3);
    expect(statements).toContain(texts[4]);
    expect(statements).not.toContain(texts[0]);
    expect((await prepared.query<{ n: number }>(texts[0] as string)).rows).toEqual([{ n: 1 }]);
  });

  it("runs unnamed what PostgreSQL does not plan (DDL, SET) and a statement with a large parameter", async () => {
    const { db, prepared } = await open();
    await prepared.query("CREATE TABLE other (id int)");
    await prepared.query("SET statement_timeout = 0");
    expect(await kept(db)).toEqual([]);

    // Planned for the thousands of rows it holds; the same text with a few rows is prepared.
    const insert = "INSERT INTO item (id, label) SELECT id, 'n' || id FROM unnest($1::int[]) AS id";
    const many = Array.from({ length: 1_001 }, (_, i) => i + 1);
    await prepared.query(insert, [many]);
    expect(await kept(db)).toEqual([]);
    await prepared.query(insert, [[5_000, 5_001]]);
    expect(await kept(db)).toEqual([{ statement: insert, runs: 1 }]);
    expect((await prepared.query("SELECT count(*)::int AS n FROM item")).rows).toEqual([{ n: 1_003 }]);
  });

  it("leaves the session usable after an error, and a failed statement in a transaction fails the transaction", async () => {
    const { db, prepared } = await open();
    const insert = "INSERT INTO item (id, label) VALUES ($1, $2)";
    await prepared.query(insert, [1, "one"]);
    await expect(prepared.query(insert, [1, "again"])).rejects.toMatchObject({ code: "23505" });
    await expect(prepared.query("SELEC 1")).rejects.toMatchObject({ code: "42601" });

    await expect(
      db.transaction(async (tx) => {
        const query = prepared.inTransaction(tx.query.bind(tx));
        await query(insert, [2, "two"]);
        await query(insert, [1, "duplicate"]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await prepared.query("SELECT id, label FROM item ORDER BY id")).rows).toEqual([{ id: 1, label: "one" }]);
    expect(db.isInTransaction()).toBe(false);
  });

  it("prepares a statement again when a table it reads changed its columns", async () => {
    const { db, prepared } = await open();
    await prepared.query("INSERT INTO item (id, label) VALUES (1, 'one')");
    const all = "SELECT * FROM item";
    expect((await prepared.query(all)).rows).toEqual([{ id: 1, label: "one" }]);
    await db.exec("ALTER TABLE item ADD COLUMN weight int NOT NULL DEFAULT 7");
    expect((await prepared.query(all)).rows).toEqual([{ id: 1, label: "one", weight: 7 }]);
  });
});
