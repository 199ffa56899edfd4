// GET /api/v1/health on embedded PGlite and PostgreSQL: 200 while the database answers, 503 when
// it refuses or is too slow, without a key, saying nothing a stranger could use; probes arriving
// together cost one query.
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkDatabase } from "@/server/db/health";
import { serveDb } from "@/server/db/client";
import { openTestDatabase, testEngines } from "@/server/testing/db";
import { healthSchema } from "./health-schema";
import { forgetHealth, instanceHealth } from "./health";

const { GET } = await import("@/app/api/v1/health/route");

const URL = "http://localhost/api/v1/health";

afterEach(() => {
  forgetHealth();
  vi.restoreAllMocks();
});

describe.each(testEngines())("GET /api/v1/health on %s", (engine) => {
  it("answers 200 with the database's round trip, without a key and not to be cached", async () => {
    const database = await openTestDatabase(engine, { serve: true });
    try {
      const response = await GET(new Request(URL, { headers: { host: "localhost" } }));
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-request-id")).toBeTruthy();
      const body = healthSchema.parse(await response.json());
      expect(body.status).toBe("ok");
      expect(body.checks.database.status).toBe("ok");
      if (body.checks.database.status === "ok") expect(body.checks.database.latencyMs).toBeGreaterThanOrEqual(0);
      expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
      expect(body.uptimeSeconds).toBeLessThanOrEqual(process.uptime());
    } finally {
      await database.close();
    }
  });

  it("answers 503 once the database refuses, logging the error but not showing it", async () => {
    const database = await openTestDatabase(engine);
    serveDb(database.db);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      await database.close();
      const response = await GET(new Request(URL));
      expect(response.status).toBe(503);
      const text = await response.text();
      expect(healthSchema.parse(JSON.parse(text))).toEqual({
        status: "unavailable",
        checks: {
          database: { status: "failed", reason: "The database refused the check; the server's log has the error." },
          storage: { status: "ok" },
        },
        uptimeSeconds: expect.any(Number),
      });
      expect(logged).toHaveBeenCalledTimes(1);
      const [message, error] = logged.mock.calls[0]!;
      expect(message).toBe("[ace-studio] health check: The database refused the check; the server's log has the error.");
      expect(error).toBeInstanceOf(Error);
      expect(text).not.toContain((error as Error).message);
      // A failing database is logged once a minute, not at every probe.
      forgetHealth({ keepLogClock: true });
      expect((await GET(new Request(URL))).status).toBe(503);
      expect(logged).toHaveBeenCalledTimes(1);

      // Back on a database that answers: 200 again, and the log says so once.
      const told = vi.spyOn(console, "log").mockImplementation(() => undefined);
      const working = await openTestDatabase(engine, { serve: true });
      try {
        forgetHealth({ keepLogClock: true });
        expect((await GET(new Request(URL))).status).toBe(200);
        forgetHealth({ keepLogClock: true });
        expect((await GET(new Request(URL))).status).toBe(200);
        expect(told.mock.calls).toEqual([["[ace-studio] health check: the database answers again"]]);
      } finally {
        await working.close();
      }
    } finally {
      serveDb(undefined);
    }
  });

  it("shares one check between probes that arrive together or within a second", async () => {
    const database = await openTestDatabase(engine, { serve: true });
    try {
      const queries = vi.spyOn(database.db, "$queryRaw");
      const answers = await Promise.all(Array.from({ length: 20 }, () => instanceHealth()));
      expect(answers.every((answer) => answer.status === "ok")).toBe(true);
      expect((await instanceHealth()).status).toBe("ok");
      expect(queries).toHaveBeenCalledTimes(1);
      forgetHealth();
      await instanceHealth();
      expect(queries).toHaveBeenCalledTimes(2);
    } finally {
      await database.close();
    }
  });
});

describe("checkDatabase on PGlite", () => {
  it("fails when the database has not answered in time, and does not wait for it", async () => {
    const database = await openTestDatabase("pglite");
    try {
      // PGlite has one connection: a transaction holding it (while its JavaScript awaits something)
      // makes the check wait behind it.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = () => {};
      const holding = new Promise<void>((resolve) => {
        started = resolve;
      });
      const transaction = database.db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT 1`;
        started();
        await held;
      });
      await holding;
      const check = await checkDatabase(database.db, { timeoutMs: 100 });
      expect(check).toEqual({ status: "failed", reason: "The database did not answer within 100 ms." });
      // It answered while the transaction still holds the connection (it ends only on release()).
      release();
      await transaction;
      expect((await checkDatabase(database.db, { timeoutMs: 5_000 })).status).toBe("ok");
    } finally {
      await database.close();
    }
  });
});
