// The migration that lets queueing claim a trace (Trace.reflectQueuedAt), on a database that already
// holds reflector runs: the traces those runs name count as queued from their first run's time, so
// no trace is reflected a second time after the upgrade, and the others can still be queued.
// On embedded PGlite (the same PostgreSQL SQL the server runs).
import { PrismaPGlite } from "pglite-prisma-adapter";
import { describe, expect, it } from "vitest";
import { PrismaClient } from "@/server/db/generated/client";
import { describedDatabaseBefore } from "@/server/testing/db";
import { enqueueReflections } from "./service";

const CLAIM_MIGRATION = "20261128023858_trace_reflect_claim";

describe("the reflection claim's migration on a database with runs", () => {
  const before = describedDatabaseBefore(CLAIM_MIGRATION);

  it("claims the traces earlier reflector runs name, at their first run's time, and leaves the rest to be queued", async () => {
    const playbookId = "5c1e0a4e-30f1-4b57-9a52-6f2d8f1c0a01";
    const reflected = "5c1e0a4e-30f1-4b57-9a52-6f2d8f1c0a02";
    const twice = "5c1e0a4e-30f1-4b57-9a52-6f2d8f1c0a03";
    const curatedOnly = "5c1e0a4e-30f1-4b57-9a52-6f2d8f1c0a04";
    const fresh = "5c1e0a4e-30f1-4b57-9a52-6f2d8f1c0a05";
    await before.pglite.exec(`
      INSERT INTO "Playbook" (id, name, version, "updatedAt") VALUES ('${playbookId}', 'upgraded', 1, now());
      INSERT INTO "Trace" (id, "playbookId", task) VALUES
        ('${reflected}', '${playbookId}', 'reflected once'), ('${twice}', '${playbookId}', 'named by two runs'),
        ('${curatedOnly}', '${playbookId}', 'named by a curator run only'), ('${fresh}', '${playbookId}', 'never queued');
      INSERT INTO "Run" (id, "playbookId", role, status, provider, model, trigger, "traceIds", "createdAt") VALUES
        (gen_random_uuid(), '${playbookId}', 'reflector', 'succeeded', 'offline', 'offline', 'auto', ARRAY['${reflected}'], '2026-05-01 10:00:00'),
        (gen_random_uuid(), '${playbookId}', 'reflector', 'failed', 'offline', 'offline', 'auto', ARRAY['${twice}'], '2026-05-02 10:00:00'),
        (gen_random_uuid(), '${playbookId}', 'reflector', 'succeeded', 'offline', 'offline', 'manual', ARRAY['${twice}'], '2026-05-01 11:00:00'),
        (gen_random_uuid(), '${playbookId}', 'curator', 'succeeded', 'offline', 'offline', 'auto', ARRAY['${curatedOnly}'], '2026-05-03 10:00:00');`);

    // The claim migration first; later ones follow it.
    expect((await before.upgrade())[0]).toBe(CLAIM_MIGRATION);
    const db = new PrismaClient({ adapter: new PrismaPGlite(before.pglite) });
    try {
      const claims = await db.trace.findMany({ where: { playbookId }, select: { id: true, reflectQueuedAt: true } });
      expect(Object.fromEntries(claims.map((trace) => [trace.id, trace.reflectQueuedAt?.toISOString() ?? null]))).toEqual({
        [reflected]: "2026-05-01T10:00:00.000Z",
        [twice]: "2026-05-01T11:00:00.000Z",
        [curatedOnly]: null,
        [fresh]: null,
      });

      const queued = await enqueueReflections(db, playbookId, [reflected, twice, curatedOnly, fresh], "auto");
      expect(queued).toHaveLength(2);
      const runs = await db.run.findMany({ where: { id: { in: queued } }, select: { traceIds: true } });
      expect(runs.flatMap((run) => run.traceIds).sort()).toEqual([curatedOnly, fresh].sort());
      expect(await enqueueReflections(db, playbookId, [curatedOnly, fresh], "auto")).toEqual([]);
    } finally {
      await db.$disconnect();
    }
  });
});
