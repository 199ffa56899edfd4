import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, type Connection } from "./connection";
import { PrismaClient } from "./generated/client";

// Every type the adapter parses itself (numeric, money, dates, times, json, bytea), arrays among them.
const TYPED_ROW = `
  SELECT 1.50::numeric AS amount, ARRAY[1.5, 2.25]::numeric[] AS amounts, 12.34::money AS price,
         '2026-11-29'::date AS day, '13:04:05.678'::time AS at, '13:04:05+02'::timetz AS "atZone",
         '2026-11-29 13:04:05.678'::timestamp AS stamp, '2026-11-29 13:04:05.678+02'::timestamptz AS "stampZone",
         '{"a": [1, 2.5]}'::json AS doc, '{"b": null}'::jsonb AS "docB", '\\x0102ff'::bytea AS bytes, 'text' AS word`;

async function typedRows(db: PrismaClient): Promise<unknown[]> {
  const outside = await db.$queryRawUnsafe<unknown[]>(TYPED_ROW);
  const inside = await db.$transaction((tx) => tx.$queryRawUnsafe<unknown[]>(TYPED_ROW));
  return [outside, inside];
}

describe("the embedded connection", () => {
  let connection: Connection | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await connection?.close();
  });

  it("installs the adapter's parsers once, so queries no longer carry them, with the same values read", async () => {
    const query = vi.spyOn(PGlite.prototype, "query");
    connection = await connect({ kind: "pglite", dataDir: ":memory:" });
    const installed = await typedRows(new PrismaClient({ adapter: connection.factory }));

    const plain = new PGlite();
    try {
      const expected = await typedRows(new PrismaClient({ adapter: new PrismaPGlite(plain) }));
      expect(installed).toEqual(expected);
    } finally {
      await plain.close();
    }
    const embedded = query.mock.calls.filter((_, i) => query.mock.contexts[i] === connection?.pglite);
    expect(embedded.length).toBeGreaterThan(0);
    for (const [, , options] of embedded) expect(options?.parsers).toBeUndefined();
  });
});
