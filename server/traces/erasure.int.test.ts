// Deleting on request (issue 16 §3) through the tRPC procedures and GET/DELETE /api/v1/traces, on
// embedded PGlite and PostgreSQL: a unit's traces exported as JSON Lines, then deleted with its
// experiment exposures; counters kept; the audit entry without the personal id; bad selections refused.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { assignUnit } from "@/server/experiments/assignment";
import { testEngines } from "@/server/testing/db";
import { expectAppError, twoVariants } from "@/server/testing/fixtures";
import { playbookSuite, type PlaybookSuite } from "@/server/testing/playbook-suite";
import { callerAs } from "@/server/trpc/callers";
import { TRACE_EXPORT_PAGE, type TraceExportRecord } from "./schemas";

// No reflections: these tests are about what is stored and deleted.
vi.mock("@/server/runs/triggers", () => ({ onTracesStored: async () => undefined }));

const { GET, DELETE } = await import("@/app/api/v1/traces/route");

const EMAIL = "jane.doe@example.com";

function call(handler: typeof GET, query: string): Promise<Response> {
  return handler(new Request(`http://localhost/api/v1/traces?${query}`, { method: handler === GET ? "GET" : "DELETE" }));
}

async function messageOf(response: Response): Promise<string> {
  const { error } = (await response.json()) as { error: { message: string; issues?: { message: string }[] } };
  return [error.message, ...(error.issues ?? []).map((issue) => issue.message)].join(" ");
}

function lines(text: string): TraceExportRecord[] {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TraceExportRecord);
}

describe.each(testEngines())("deleting on request on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "tester"] });
  let caller: PlaybookSuite["caller"];
  let playbookId: string;
  beforeEach(() => {
    ({ caller, playbookId } = suite);
  });

  const counters = () =>
    suite.database.db.bullet.findMany({
      orderBy: { externalId: "asc" },
      select: { externalId: true, helpful: true, harmful: true, neutral: true },
    });

  async function seedUnitWithExperiment() {
    await caller.experiments.create({ ...twoVariants(), status: "running" });
    await assignUnit(suite.database.db, "tone", EMAIL);
    await caller.traces.ingest({
      traces: [
        { playbook: "support", externalId: "jane-1", task: "Refund order 1182", unitId: EMAIL, experiment: "tone", outcome: "success" },
        { playbook: "support", externalId: "jane-2", task: "Cancel order 1183", unitId: EMAIL, outcome: "failure" },
        { playbook: "support", externalId: "other-1", task: "Track parcel 77", unitId: "user-7", experiment: "tone" },
        { playbook: "support", externalId: "anon-1", task: "Say hello" },
      ],
    });
  }

  it("a unit's traces are exported as JSON Lines and deleted with its exposures in one step; the rest, and the counters, stay", async () => {
    await seedUnitWithExperiment();
    const countersBefore = await counters();

    expect(await caller.traces.selectionSummary({ playbookId, unitId: EMAIL })).toMatchObject({ traces: 2, exposures: 1, unreflected: 2 });

    const exported = await call(GET, `playbook=support&unitId=${encodeURIComponent(EMAIL)}`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    const text = await exported.text();
    const records = lines(text);
    expect(records.map((record) => (record.record === "trace" ? record.externalId : `exposure:${record.experiment}`))).toEqual([
      "jane-1",
      "jane-2",
      "exposure:tone",
    ]);
    // What is stored is exported: the email only as its keyed hash.
    expect(records.every((record) => record.unitId?.startsWith("hmac:"))).toBe(true);
    expect(text).not.toContain(EMAIL);
    expect(records[0]).toMatchObject({
      record: "trace",
      playbook: "support",
      task: "Refund order 1182",
      outcome: "success",
      experiment: "tone",
    });

    const deleted = await call(DELETE, `playbook=support&unitId=${encodeURIComponent(EMAIL)}`);
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: { traces: 2, exposures: 1, runsEmptied: 0, deltasRewritten: 0 } });

    const left = await suite.database.db.trace.findMany({ orderBy: { externalId: "asc" }, select: { externalId: true } });
    expect(left.map((row) => row.externalId)).toEqual(["anon-1", "other-1"]);
    const exposures = await suite.database.db.experimentExposure.findMany({ select: { unitId: true } });
    expect(exposures).toEqual([{ unitId: "user-7" }]);
    expect(await counters()).toEqual(countersBefore);
    expect(lines(await (await call(GET, `playbook=support&unitId=${encodeURIComponent(EMAIL)}`)).text())).toEqual([]);

    const [entry] = await suite.database.db.auditEntry.findMany({
      where: { action: "trace.delete" },
      select: { summary: true, playbookId: true },
    });
    expect(entry?.playbookId).toBe(playbookId);
    expect(entry?.summary).toMatchObject({
      before: { selection: { unitId: expect.stringMatching(/^hmac:[0-9a-f]{64}$/) } },
      after: { traces: 2, exposures: 1 },
    });
    expect(JSON.stringify(entry)).not.toContain(EMAIL);
  });

  it("an external id, or a time range, selects just those traces, and their exposures go only when they were their own unit", async () => {
    await caller.traces.ingest({
      traces: [
        { playbook: "support", externalId: "old", task: "A", timestamp: "2026-01-05T10:00:00Z" },
        { playbook: "support", externalId: "mid", task: "B", timestamp: "2026-02-05T10:00:00Z" },
        { playbook: "support", externalId: "new", task: "C", timestamp: "2026-03-05T10:00:00Z" },
      ],
    });
    expect(await caller.traces.deleteSelection({ playbookId, externalId: "new" })).toMatchObject({ traces: 1, exposures: 0 });
    const range = { playbookId, from: new Date("2026-01-01T00:00:00Z"), to: new Date("2026-02-05T10:00:00Z") };
    expect(await caller.traces.selectionSummary(range)).toMatchObject({ traces: 1, oldest: new Date("2026-01-05T10:00:00Z") });
    expect(await caller.traces.deleteSelection(range)).toMatchObject({ traces: 1, exposures: 0 });
    const left = await suite.database.db.trace.findMany({ select: { externalId: true } });
    expect(left).toEqual([{ externalId: "mid" }]);
  });

  it("an export longer than a page is read page by page, oldest first, with nothing missed", async () => {
    const total = TRACE_EXPORT_PAGE + 3;
    await caller.traces.ingest({
      traces: Array.from({ length: total }, (_, index) => ({
        playbook: "support",
        externalId: `u-${index}`,
        task: `Task ${index}`,
        unitId: "user-9",
      })),
    });
    const first = await caller.traces.exportSelection({ selection: { playbookId, unitId: "user-9" } });
    expect(first.records).toHaveLength(TRACE_EXPORT_PAGE);
    expect(first.nextCursor).not.toBeNull();
    const second = await caller.traces.exportSelection({ selection: { playbookId, unitId: "user-9" }, cursor: first.nextCursor });
    expect(second).toMatchObject({ nextCursor: null });
    const ids = [...first.records, ...second.records].map((record) => (record.record === "trace" ? record.externalId : null));
    expect(new Set(ids).size).toBe(total);
    const exported = lines(await (await call(GET, "playbook=support&unitId=user-9")).text());
    expect(exported).toHaveLength(total);
  });

  it("no selector, a range ending before it starts, an unknown parameter or playbook, and a curator are refused, and nothing is deleted", async () => {
    await seedUnitWithExperiment();
    await expectAppError(
      caller.traces.deleteSelection({ playbookId }),
      "BAD_REQUEST",
      /Name the traces: a unitId, an externalId or a time range/,
    );
    await expectAppError(
      caller.traces.deleteSelection({ playbookId, from: new Date("2026-02-01T00:00:00Z"), to: new Date("2026-01-01T00:00:00Z") }),
      "BAD_REQUEST",
      /must be later than from/,
    );
    await expectAppError(
      callerAs(suite.database.db, "curator", "cora").traces.deleteSelection({ playbookId, unitId: EMAIL }),
      "FORBIDDEN",
      /.+/,
    );

    const bare = await call(DELETE, "playbook=support");
    expect(bare.status).toBe(400);
    expect(await messageOf(bare)).toMatch(/Name the traces/);
    const typo = await call(DELETE, "playbook=support&unit=jane");
    expect(typo.status).toBe(400);
    expect(await messageOf(typo)).toMatch(/Unknown parameter unit; the parameters are playbook, unitId, externalId, from, to/);
    const badTime = await call(DELETE, "playbook=support&from=yesterday");
    expect(badTime.status).toBe(400);
    expect(await messageOf(badTime)).toMatch(/from is an ISO 8601 time/);
    const unknown = await call(DELETE, "playbook=nope&unitId=jane");
    expect(unknown.status).toBe(404);
    expect(await messageOf(unknown)).toMatch(/No playbook named "nope"/);

    expect(await suite.database.db.trace.count()).toBe(4);
    expect(await suite.database.db.experimentExposure.count()).toBe(2);
    expect(await suite.database.db.auditEntry.count({ where: { action: "trace.delete" } })).toBe(0);
  });
});
