import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { testEngines } from "@/server/testing/db";
import { connect, type Connection } from "./connection";
import { PrismaClient } from "./generated/client";

// Every type the adapter parses itself (numeric, money, dates, times, json, bytea), arrays among them,
// and parameters of the types the app passes.
const TYPED_ROW = `
  SELECT 1.50::numeric AS amount, ARRAY[1.5, 2.25]::numeric[] AS amounts, 12.34::money AS price,
         '2026-11-29'::date AS day, '13:04:05.678'::time AS at, '13:04:05+02'::timetz AS "atZone",
         '2026-11-29 13:04:05.678'::timestamp AS stamp, '2026-11-29 13:04:05.678+02'::timestamptz AS "stampZone",
         '{"a": [1, 2.5]}'::json AS doc, '{"b": null}'::jsonb AS "docB", '\\x0102ff'::bytea AS bytes, 'text' AS word,
         $1::int AS "intParam", $2::text AS "textParam", $3::jsonb AS "jsonParam", $4::timestamptz AS "timeParam",
         $5::bytea AS "bytesParam", $6::text[] AS "listParam", $7::uuid AS "uuidParam", $8::boolean AS "flagParam",
         $9::float8 AS "floatParam", $10::text AS "nullParam"`;
const PARAMS = [
  42,
  'l\'été \\ "quoted"',
  JSON.stringify({ a: [1, 2.5], b: null }),
  new Date("2026-11-29T13:04:05.678Z"),
  new Uint8Array([1, 2, 255]),
  ["one", "two, three", 'a "quote"'],
  "6f9619ff-8b86-d011-b42d-00c04fc964ff",
  true,
  0.1 + 0.2,
  null,
];

async function typedRows(db: PrismaClient): Promise<unknown[]> {
  const outside = await db.$queryRawUnsafe<unknown[]>(TYPED_ROW, ...PARAMS);
  const inside = await db.$transaction((tx) => tx.$queryRawUnsafe<unknown[]>(TYPED_ROW, ...PARAMS));
  return [outside, inside];
}

describe("the embedded connection", () => {
  let connection: Connection | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await connection?.close();
  });

  it("installs the adapter's parsers once and prepares each statement once, with the same values read and written", async () => {
    const query = vi.spyOn(PGlite.prototype, "query");
    connection = await connect({ kind: "pglite", dataDir: ":memory:" });
    const installed = await typedRows(new PrismaClient({ adapter: connection.factory }));
    // Once, for both runs (outside and inside a transaction).
    const { rows } = await (connection.pglite as PGlite).query<{ runs: number }>(
      "SELECT (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE statement = $1",
      [TYPED_ROW],
    );
    expect(rows).toEqual([{ runs: 2 }]);

    const plain = new PGlite();
    try {
      const expected = await typedRows(new PrismaClient({ adapter: new PrismaPGlite(plain) }));
      expect(installed).toEqual(expected);
    } finally {
      await plain.close();
    }
    // What is not prepared goes to PGlite's own query(), without the parsers.
    const embedded = query.mock.calls.filter((_, i) => query.mock.contexts[i] === connection?.pglite);
    for (const [, , options] of embedded) expect(options?.parsers).toBeUndefined();
  });
});

describe.runIf(testEngines().includes("postgres"))("the PostgreSQL connection", () => {
  let connection: Connection | undefined;
  afterEach(async () => {
    await connection?.close();
  });

  it("runs a statement named from its second run on, kept by the connection, with the same values read and written", async () => {
    connection = await connect({ kind: "postgres", url: inject("testPostgresUrl") as string });
    const db = new PrismaClient({ adapter: connection.factory });
    // One connection: a transaction's.
    const { runs, kept } = await db.$transaction(async (tx) => {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await tx.$queryRawUnsafe<unknown[]>(TYPED_ROW, ...PARAMS));
      const kept = await tx.$queryRawUnsafe<{ name: string; runs: number }[]>(
        "SELECT name, (generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE statement = $1",
        TYPED_ROW,
      );
      return { runs, kept };
    });
    expect(kept).toEqual([{ name: expect.stringMatching(/^ace_q\d+$/), runs: 2 }]);
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });

  it("keeps no statement behind a pooler (pgbouncer=true in the URL, which is not passed on)", async () => {
    const url = new URL(inject("testPostgresUrl") as string);
    url.searchParams.set("pgbouncer", "true");
    url.searchParams.set("application_name", "ace-pooler-test");
    connection = await connect({ kind: "postgres", url: url.toString() });
    const db = new PrismaClient({ adapter: connection.factory });
    const { kept, application } = await db.$transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await tx.$queryRawUnsafe(TYPED_ROW, ...PARAMS);
      return {
        kept: await tx.$queryRawUnsafe<unknown[]>("SELECT name FROM pg_prepared_statements"),
        application: await tx.$queryRawUnsafe<{ name: string }[]>("SELECT current_setting('application_name') AS name"),
      };
    });
    expect(kept).toEqual([]);
    expect(application).toEqual([{ name: "ace-pooler-test" }]);
  });
});
