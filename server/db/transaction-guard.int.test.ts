// No query on the outer client while a transaction of the same request is open: on the embedded
// database that query waits for the transaction, which waits for it. Tests make it an error at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { OuterClientInTransactionError } from "./transaction-guard";

describe.each(testEngines())("the transaction guard on %s", (engine) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
  });
  afterAll(async () => {
    await database?.close();
  });

  it("refuses a query on the outer client inside a transaction, at once and naming the fix", async () => {
    const { db } = database;
    const started = Date.now();
    const attempt = db.$transaction(async (tx) => {
      await tx.playbook.count();
      return db.playbook.count();
    });
    await expect(attempt).rejects.toThrow(OuterClientInTransactionError);
    await expect(attempt).rejects.toThrow(/Pass the transaction's client \(tx\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("refuses raw SQL on the outer client inside a transaction too", async () => {
    const { db } = database;
    await expect(db.$transaction(async () => db.$queryRaw`SELECT 1`)).rejects.toThrow(OuterClientInTransactionError);
  });

  it("lets the transaction's own client, and the outer client before and after, through", async () => {
    const { db } = database;
    const before = await db.playbook.count();
    const inside = await db.$transaction(async (tx) => tx.playbook.count());
    expect(inside).toBe(before);
    expect(await db.playbook.count()).toBe(before);
  });

  it("lets work a transaction started without waiting for query once the transaction has ended", async () => {
    const { db } = database;
    let later: Promise<number> | undefined;
    await db.$transaction(async (tx) => {
      later = new Promise<void>((resolve) => setTimeout(resolve, 50)).then(() => db.playbook.count());
      return tx.playbook.count();
    });
    await expect(later).resolves.toBeTypeOf("number");
  });

  it("leaves concurrent requests outside any transaction alone", async () => {
    const { db } = database;
    const counts = await Promise.all([
      db.$transaction(async (tx) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return tx.playbook.count();
      }),
      db.playbook.count(),
      db.playbook.count(),
    ]);
    expect(counts).toHaveLength(3);
  });
});
