// What several app instances on one database share in the runs domain (issue 15, item 6), on
// embedded PGlite and PostgreSQL. On PostgreSQL a second connection pool stands for the other
// instance: what one does reaches the other only through the database.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/server/db/client";
import { CircuitBreaker, type BreakerPermit } from "@/server/llm/circuit-breaker";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { breakerStore } from "./providers";

describe.each(testEngines())("several instances on one %s database", (engine) => {
  let database: TestDatabase;
  let other: TestDatabase | undefined;
  let db: Db;
  let db2: Db;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    if (engine === "postgres") other = await openTestDatabase(engine);
    db = database.db;
    db2 = other?.db ?? db;
  });
  afterAll(async () => {
    await other?.close();
    await database?.close();
  });
  beforeEach(async () => database.reset());

  describe("the LLM circuit breaker", () => {
    let now = 1_000_000;
    const breakers = (options: { failureThreshold: number; cooldownMs?: number }) =>
      [db, db2, db2].map((client) => new CircuitBreaker({ ...options, syncMs: 1_000, now: () => now, store: breakerStore(client) }));
    const fail = async (breaker: CircuitBreaker) => {
      expect((await breaker.acquire()).allowed).toBe(true);
      await breaker.recordFailure("HTTP 503 from the provider");
    };
    beforeEach(() => {
      now = 1_000_000;
    });

    it("counts failures of every instance exactly: concurrent failures add up and open it once for all", async () => {
      const [one, two, three] = breakers({ failureThreshold: 6, cooldownMs: 60_000 });
      await Promise.all([fail(one!), fail(two!), fail(three!), fail(one!), fail(two!)]);
      now += 1_000;
      expect(await one!.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 5 });
      await fail(three!);
      now += 1_000; // each instance's copy is at most syncMs old
      for (const breaker of [one!, two!, three!]) {
        expect(await breaker.acquire()).toMatchObject({ allowed: false, retryAfterMs: 59_000 });
        expect(await breaker.snapshot()).toMatchObject({ state: "open", consecutiveFailures: 6, lastError: "HTTP 503 from the provider" });
      }
    });

    it("lets one probe through across instances after the cooldown; its success closes it for all", async () => {
      const [one, two, three] = breakers({ failureThreshold: 1, cooldownMs: 5_000 });
      await fail(one!);
      now += 5_000;
      const permits: BreakerPermit[] = await Promise.all([one!.acquire(), two!.acquire(), three!.acquire()]);
      expect(permits.filter((permit) => permit.allowed)).toEqual([{ allowed: true, probe: true }]);
      const prober = [one!, two!, three!][permits.findIndex((permit) => permit.allowed)]!;
      await prober.recordSuccess();
      now += 1_000;
      for (const breaker of [one!, two!, three!]) expect(await breaker.acquire()).toEqual({ allowed: true, probe: false });
    });
  });
});
