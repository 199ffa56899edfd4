// Erasure over HTTP reaches every copy, on embedded PGlite and on PostgreSQL: an app instance runs as
// its own process (server/testing/app-server.ts: the start-up of `next start`, its run worker with
// the offline rules, and the same route handlers). The agent's traces go in through POST
// /api/v1/traces, the instance reflects and curates them, DELETE /api/v1/traces?unitId=… erases
// one customer; then no text, json or text[] column of any table holds the marker from their trace.
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { pgliteDir } from "@/server/db/config";
import { onPostgres, startAppInstance, type AppInstance } from "@/server/testing/app-instance";
import { testEngines } from "@/server/testing/db";
import { SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { MARKER, markedTrace, otherTrace, UNIT } from "@/server/testing/marked-trace";
import { columnsHolding, type RunQuery } from "@/server/testing/text-scan";

describe.each(testEngines())("erasure over HTTP on %s", (engine) => {
  let instance: AppInstance | undefined;

  beforeAll(async () => {
    instance = await startAppInstance(engine, { postgresUrl: inject("testPostgresUrl") });
  }, 120_000);

  afterAll(async () => {
    await instance?.drop();
  }, 60_000);

  /** Every text column of the instance's database holding the marker (PGlite: opened once the instance has stopped). */
  async function holdingMarker(): Promise<string[]> {
    const { database } = instance!;
    if (database.kind === "postgres") {
      return onPostgres(database.url, (client) =>
        columnsHolding(async (sql, params) => (await client.query(sql, params)).rows as Record<string, unknown>[], MARKER),
      );
    }
    await instance!.stop();
    const pglite = new PGlite(pgliteDir(database.dataDir));
    try {
      const query: RunQuery = async (sql, params) => (await pglite.query<Record<string, unknown>>(sql, params)).rows;
      return await columnsHolding(query, MARKER);
    } finally {
      await pglite.close();
    }
  }

  it("DELETE /api/v1/traces by unit id leaves the marker in no column: runs emptied, deltas rewritten, the other customer's kept", async () => {
    onTestFailed(() => console.error(instance?.log.join("").slice(-8_000)));
    const url = instance!.url;
    const { trpc } = instance!;
    const { playbookId } = await trpc.playbook.import.mutate({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: "support" },
    });
    await trpc.playbook.updateSettings.mutate({ playbookId, settings: { curatorFrequency: 2 } });

    const posted = await fetch(`${url}/api/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ traces: [markedTrace(), otherTrace] }),
    });
    expect(posted.status, await posted.clone().text()).toBe(201);

    // The instance's worker reflects both traces, then curates them in one run.
    const deadline = Date.now() + 60_000;
    let runs = (await trpc.runs.list.query({ playbookId, limit: 50 })).items;
    while (!(runs.length === 3 && runs.every((run) => run.status === "succeeded"))) {
      expect(Date.now(), `runs not finished: ${JSON.stringify(runs.map((run) => [run.role, run.status]))}`).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
      runs = (await trpc.runs.list.query({ playbookId, limit: 50 })).items;
    }
    const curator = runs.find((run) => run.role === "curator")!;
    expect(JSON.stringify((await trpc.runs.get.query({ runId: curator.id })).prompt)).toContain(MARKER);

    const deleted = await fetch(`${url}/api/v1/traces?playbook=support&unitId=${UNIT}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: { traces: 1, exposures: 0, runsEmptied: 2, deltasRewritten: 2 } });

    const after = await Promise.all(runs.map((run) => trpc.runs.get.query({ runId: run.id })));
    expect(after.map((run) => run.redactedReason ?? "kept").sort()).toEqual(["erasure", "erasure", "kept"]);
    expect(after.find((run) => run.redactedReason === null)?.traces.map((trace) => trace.task)).toEqual([otherTrace.task]);

    expect(await holdingMarker()).toEqual([]);
  }, 180_000);
});
