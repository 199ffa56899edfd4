// The metrics' migrations on a database that already holds data: traces received before traces had
// a timestamp keep their receipt time and are counted in the hourly rollup, and versions written
// before figures existed get theirs once, from the start-up backfill. On embedded PGlite (the same PostgreSQL SQL the server runs).
import { PrismaPGlite } from "pglite-prisma-adapter";
import { describe, expect, it } from "vitest";
import { PrismaClient } from "@/server/db/generated/client";
import { describedDatabaseBefore } from "@/server/testing/db";
import { backfillVersionFigures } from "./figures";

/** The first migration of the metrics: everything before it is the database as it was. */
const FIRST_METRICS_MIGRATION = "20261123221558_trace_time_model_cost";

describe("metrics migrations on a database with data", () => {
  const before = describedDatabaseBefore(FIRST_METRICS_MIGRATION);

  it("existing traces keep their receipt time as the time they ran and are rolled up; old versions get their figures once", async () => {
    const playbookId = "0b0f3a58-7a43-4d55-9b38-0d8f1b3c2a01";
    const section = { id: "0b0f3a58-7a43-4d55-9b38-0d8f1b3c2a02", name: "strategies", slug: "str", position: 0 };
    const bullet = (externalId: string, helpful: number, harmful: number) => ({
      externalId,
      sectionId: section.id,
      content: `Advice ${externalId}`,
      helpful,
      harmful,
      neutral: 0,
      countersKnown: true,
      status: "active",
      position: Number(externalId.slice(-1)),
      archivedReason: null,
      mergedInto: null,
    });
    const v1 = [
      { entity: "section", id: section.id, before: null, after: section },
      { entity: "bullet", id: "str-00001", before: null, after: bullet("str-00001", 1, 0) },
      { entity: "bullet", id: "str-00002", before: null, after: bullet("str-00002", 0, 0) },
    ];
    const v2 = [{ entity: "bullet", id: "str-00002", before: bullet("str-00002", 0, 0), after: bullet("str-00002", 0, 3) }];
    await before.pglite.exec(`
      INSERT INTO "Playbook" (id, name, version, "updatedAt") VALUES ('${playbookId}', 'old', 2, now());
      INSERT INTO "Trace" (id, "playbookId", task, "createdAt")
        VALUES ('0b0f3a58-7a43-4d55-9b38-0d8f1b3c2a03', '${playbookId}', 'old task', '2026-05-01 10:00:00.123');
      INSERT INTO "PlaybookVersion" (id, "playbookId", number, author, reason, operations, "createdAt") VALUES
        ('0b0f3a58-7a43-4d55-9b38-0d8f1b3c2a04', '${playbookId}', 1, 'import', 'Imported', '${JSON.stringify(v1)}', '2026-05-01 09:00:00'),
        ('0b0f3a58-7a43-4d55-9b38-0d8f1b3c2a05', '${playbookId}', 2, 'reflector', 'Tags', '${JSON.stringify(v2)}', '2026-05-02 09:00:00');`);

    expect(await before.upgrade()).toEqual(expect.arrayContaining([FIRST_METRICS_MIGRATION]));
    const db = new PrismaClient({ adapter: new PrismaPGlite(before.pglite) });
    try {
      const old = await db.trace.findFirstOrThrow({ where: { task: "old task" }, select: { timestamp: true, createdAt: true } });
      expect(old.timestamp.toISOString()).toBe("2026-05-01T10:00:00.123Z");
      expect(old.timestamp).toEqual(old.createdAt);
      // The hourly rollup counts the traces that were there before it.
      expect(await db.traceHourly.findMany({ select: { hour: true, traces: true, unknown: true, variant: true } })).toEqual([
        { hour: new Date("2026-05-01T10:00:00.000Z"), traces: 1, unknown: 1, variant: "" },
      ]);

      expect(await backfillVersionFigures(db)).toEqual({ playbooks: 1, versions: 2 });
      expect(await backfillVersionFigures(db)).toEqual({ playbooks: 0, versions: 0 });
      const figures = await db.playbookFigures.findMany({ where: { playbookId }, orderBy: { version: "asc" } });
      expect(
        figures.map((row) => [
          row.version,
          row.recordedAt.toISOString(),
          row.activeBullets,
          row.helpful,
          row.harmful,
          row.contentChanged,
          row.countersChanged,
        ]),
      ).toEqual([
        [1, "2026-05-01T09:00:00.000Z", 2, 1, 0, true, false],
        [2, "2026-05-02T09:00:00.000Z", 2, 1, 3, false, true],
      ]);
      expect(figures[1]?.operations).toEqual({ tag: 1 });
    } finally {
      await db.$disconnect();
    }
  });
});
