// A full disk, on embedded PGlite and PostgreSQL: each engine raises its own disk_full error
// (SQLSTATE 53100, "could not extend file …: No space left on device"), here from a trigger on the
// traces table, so the error reaches the app exactly as the driver and Prisma deliver it. Over HTTP
// to a server in this process: agents get a 507 that says what to do, nothing is stored, and the
// health check says "degraded" with the reason until the window passes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { forgetHealth } from "@/server/http/health";
import { testEngines } from "@/server/testing/db";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { serveRoutes } from "@/server/testing/route-server";
import { forgetStorageFull, STORAGE_FULL_WINDOW_MS, storageFullSince } from "./storage-full";

const traces = await import("@/app/api/v1/traces/route");
const trpc = await import("@/app/api/trpc/[trpc]/route");
const health = await import("@/app/api/v1/health/route");

const ROUTES = [
  { method: "POST", pattern: /^\/api\/v1\/traces$/, handler: traces.POST },
  { method: "GET", pattern: /^\/api\/v1\/health$/, handler: health.GET },
  { method: "POST", pattern: /^\/api\/trpc\/[^/]+$/, handler: trpc.POST },
];

// What PostgreSQL raises when a table file cannot grow, raised by the engine itself.
const DISK_FULL_TRIGGER = [
  `CREATE OR REPLACE FUNCTION ace_test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION USING ERRCODE = 'disk_full', MESSAGE = 'could not extend file "base/16384/16397": No space left on device',
       HINT = 'Check free disk space.';
   END $$`,
  `CREATE TRIGGER ace_test_disk_full BEFORE INSERT ON "Trace" FOR EACH ROW EXECUTE FUNCTION ace_test_disk_full()`,
];
const DROP_TRIGGER = [`DROP TRIGGER IF EXISTS ace_test_disk_full ON "Trace"`, `DROP FUNCTION IF EXISTS ace_test_disk_full()`];

describe.each(testEngines())("a full disk on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "ada"] });
  let server: Awaited<ReturnType<typeof serveRoutes>>;

  beforeAll(async () => {
    server = await serveRoutes(ROUTES);
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    for (const statement of DROP_TRIGGER) await suite.database.db.$executeRawUnsafe(statement);
    forgetStorageFull();
    forgetHealth();
  });

  async function fillTheDisk() {
    for (const statement of DISK_FULL_TRIGGER) await suite.database.db.$executeRawUnsafe(statement);
  }

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("an agent's traces get a 507 saying the disk is full, and nothing is stored", async () => {
    await fillTheDisk();
    const response = await post("/api/v1/traces", { playbook: "support", task: "Refund order 7", outcome: "failure" });
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(response.status).toBe(507);
    expect(body.error.code).toBe("STORAGE_FULL");
    expect(body.error.message).toMatch(/disk is full, so nothing was stored\. Free disk space/);
    expect(body.error.message).not.toMatch(/base\/16384|extend file/);
    expect(await suite.database.db.trace.count()).toBe(0);
  });

  it("the studio's tRPC calls get a 507 with the same message", async () => {
    await fillTheDisk();
    const response = await post("/api/trpc/traces.ingest", { json: { traces: [{ playbook: "support", task: "Refund order 7" }] } });
    const body = (await response.json()) as { error: { json: { message: string; data: { httpStatus: number; appCode: string } } } };
    expect(response.status).toBe(507);
    expect(body.error.json.data).toMatchObject({ httpStatus: 507, appCode: "STORAGE_FULL" });
    expect(body.error.json.message).toMatch(/disk is full, so nothing was stored/);
    expect(await suite.database.db.trace.count()).toBe(0);
  });

  it("the health check says degraded with the reason after a write failed on a full disk, and ok once the window passed", async () => {
    const before = await fetch(`${server.url}/api/v1/health`);
    expect(((await before.json()) as { status: string }).status).toBe("ok");
    await fillTheDisk();
    expect((await post("/api/v1/traces", { playbook: "support", task: "t" })).status).toBe(507);
    forgetHealth();
    const degraded = await fetch(`${server.url}/api/v1/health`);
    expect(degraded.status).toBe(200);
    const body = (await degraded.json()) as { status: string; checks: { storage: { status: string; reason: string; since: string } } };
    expect(body.status).toBe("degraded");
    expect(body.checks.storage).toMatchObject({ status: "full", reason: expect.stringMatching(/disk is full/) });
    expect(Date.parse(body.checks.storage.since)).toBeLessThanOrEqual(Date.now());
    // The window: a disk-full error older than it no longer counts.
    expect(storageFullSince(Date.now() + STORAGE_FULL_WINDOW_MS + 1)).toBeNull();
  });
});
