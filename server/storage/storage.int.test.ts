// The storage report (issue 16 §4) on embedded PGlite and PostgreSQL: exact rows per table and per
// playbook, sizes from the catalog, admins only.
import { describe, expect, it, vi } from "vitest";
import { testEngines } from "@/server/testing/db";
import { databaseSuite } from "@/server/testing/playbook-suite";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";

vi.mock("@/server/runs/triggers", () => ({ onTracesStored: async () => undefined }));

describe.each(testEngines())("the storage report on %s", (engine) => {
  const suite = databaseSuite(engine, { as: ["admin", "tester"] });

  it("counts every table's rows and each playbook's, with their sizes, largest first", async () => {
    const big = await suite.caller.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "big" } });
    await suite.caller.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "small" } });
    await suite.caller.traces.ingest({
      traces: Array.from({ length: 30 }, (_, index) => ({
        playbook: "big",
        task: `Task ${index} `.repeat(50),
        outcome: "success" as const,
      })),
    });

    const report = await suite.caller.storage.report();
    const table = (name: string) => report.tables.find((row) => row.table === name);
    expect(table("Trace")).toMatchObject({ rows: 30 });
    expect(table("Bullet")).toMatchObject({ rows: 8 });
    expect(table("Playbook")).toMatchObject({ rows: 2 });
    expect(table("Trace")!.bytes).toBeGreaterThan(table("Trace")!.indexBytes);
    expect(report.tables.map((row) => row.bytes)).toEqual([...report.tables.map((row) => row.bytes)].sort((a, b) => b - a));
    expect(report.databaseBytes).toBeGreaterThanOrEqual(report.tables.reduce((sum, row) => sum + row.bytes, 0));

    expect(report.playbooks.map((playbook) => playbook.name)).toEqual(["big", "small"]);
    const [first, second] = report.playbooks;
    expect(first).toMatchObject({ playbookId: big.playbookId });
    const rows = (playbook: typeof first, name: string) => playbook?.tables.find((row) => row.table === name)?.rows;
    expect(rows(first, "Trace")).toBe(30);
    expect(rows(first, "Bullet")).toBe(4);
    expect(rows(first, "TraceHourly")).toBeGreaterThanOrEqual(1);
    expect(rows(second, "Trace")).toBeUndefined();
    expect(rows(second, "Bullet")).toBe(4);
    // 30 traces of about 400 characters each.
    expect(first!.tables.find((row) => row.table === "Trace")!.bytes).toBeGreaterThan(30 * 400);
    expect(first!.rows).toBe(first!.tables.reduce((sum, row) => sum + row.rows, 0));
  });

  it("is for admins only", async () => {
    await expectAppError(callerAs(suite.database.db, "curator", "cora").storage.report(), "FORBIDDEN", /.+/);
  });
});
