// Retention on embedded PGlite and PostgreSQL, with back-dated traces, runs and deltas: what expired
// is removed (in batches) and recorded, what is still needed is kept, and every figure the metrics
// return for the expired days is the same after the run as before it.
import { describe, expect, it, vi } from "vitest";
import { testEngines } from "@/server/testing/db";
import { expectAppError, twoVariants } from "@/server/testing/fixtures";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { callerAs } from "@/server/trpc/callers";
import type { Db } from "@/server/db/client";
import { parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";
import { previewRetention, RETENTION_BATCH, RETENTION_JOB, retentionHandlers, runRetention, scheduleRetention } from "./service";

// The runs domain would queue a reflection per trace; these tests mark traces reflected themselves.
vi.mock("@/server/runs/triggers", () => ({ onTracesStored: async () => undefined }));

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Every instant of the fixture is relative to the start of the current hour. */
const NOW_HOUR = Math.floor(Date.now() / HOUR) * HOUR;
const ago = (days: number, minutes = 0) => new Date(NOW_HOUR - days * DAY - minutes * 60_000);

async function ingest(db: Db, traces: Record<string, unknown>[]): Promise<string[]> {
  const result = await ingestTraces(db, parseTraceBody(JSON.parse(JSON.stringify({ traces }))), { source: "api" });
  return result.traces.map((trace) => trace.id);
}

/**
 * 60 traces 40–45 days old over many hours (outcomes, tokens, costs and durations varied, two variants
 * of an experiment label no experiment has) and 10 from 3 days ago; all reflected but the first old one.
 */
function oldAndRecentTraces(): Record<string, unknown>[] {
  const traces: Record<string, unknown>[] = [];
  for (let i = 0; i < 60; i += 1) {
    traces.push({
      playbook: "support",
      task: `old task ${i}`,
      externalId: `old-${i}`,
      timestamp: ago(40 + (i % 6), i * 37).toISOString(),
      outcome: ["success", "failure", "unknown"][i % 3],
      durationMs: 100 + ((i * 53) % 900),
      ...(i % 4 === 0 ? {} : { usage: { inputTokens: 100 + i, outputTokens: 10 + i, costUsd: i % 5 === 0 ? undefined : 0.001 * i } }),
      ...(i % 2 === 0 ? { experiment: "label-only", variant: i % 4 === 0 ? "A" : "B" } : {}),
    });
  }
  for (let i = 0; i < 10; i += 1) {
    traces.push({
      playbook: "support",
      task: `recent ${i}`,
      externalId: `recent-${i}`,
      timestamp: ago(3, i * 11).toISOString(),
      outcome: "success",
    });
  }
  return traces;
}

async function insertRun(
  db: Db,
  playbookId: string,
  fields: { status: "failed" | "succeeded"; createdAt: Date; latencyMs: number; role?: "reflector" | "curator" },
) {
  const run = await db.run.create({
    data: {
      playbookId,
      role: fields.role ?? "reflector",
      status: fields.status,
      provider: "offline",
      model: "rules",
      createdAt: fields.createdAt,
      latencyMs: fields.latencyMs,
      inputTokens: 500,
      outputTokens: 50,
      costUsd: fields.status === "failed" ? null : 0.002,
      attempts: fields.status === "failed" ? 3 : 1,
      error: fields.status === "failed" ? "The provider answered 500" : null,
    },
    select: { id: true },
  });
  return run.id;
}

async function insertDelta(
  db: Db,
  playbookId: string,
  fields: {
    status: "rejected" | "pending" | "applied";
    createdAt: Date;
    decidedAt?: Date | null;
    traceIds?: string[];
    runIds?: string[];
    nearDuplicate?: boolean;
  },
) {
  const delta = await db.delta.create({
    data: {
      playbookId,
      status: fields.status,
      origin: "reflector",
      author: "reflector",
      baseVersion: 1,
      evidence: { traceIds: fields.traceIds ?? [], runIds: fields.runIds ?? [], links: [], notes: "" },
      createdAt: fields.createdAt,
      decidedAt: fields.decidedAt ?? null,
      decidedBy: fields.decidedAt ? "ada" : null,
      operations: {
        create: [
          {
            position: 0,
            type: "add",
            status: fields.status === "rejected" ? "rejected" : fields.status === "applied" ? "approved" : "pending",
            payload: { section: "strategies", content: "Ask before refunding." },
            flags: fields.nearDuplicate ? [{ kind: "near_duplicate", bulletId: "str-00001", similarity: 0.9 }] : [],
          },
        ],
      },
    },
    select: { id: true },
  });
  return delta.id;
}

describe.each(testEngines())("retention on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "ada"] });

  /** Every figure the Evolution tab and the overview read, for ranges over the expired days. */
  async function figures() {
    const from = ago(50);
    const to = new Date(NOW_HOUR);
    const { playbookId, caller } = suite;
    return {
      day: await caller.metrics.playbook({ playbookId, from, to, bucket: "day" }),
      hour: await caller.metrics.playbook({ playbookId, from: ago(48), to: ago(39), bucket: "hour" }),
      week: await caller.metrics.playbook({ playbookId, from, to, bucket: "week" }),
      variant: await caller.metrics.playbook({ playbookId, from, to, bucket: "day", experiment: "label-only", variant: "B" }),
      all: await caller.metrics.playbook({ playbookId, from: ago(400), to, bucket: "week" }),
      overview: await caller.metrics.overview({ from, to, bucket: "day" }),
    };
  }

  async function seed() {
    const db = suite.database.db;
    const ids = await ingest(db, oldAndRecentTraces());
    // Reflected, but the first old trace (never expired until the reflector has read it).
    await db.trace.updateMany({ where: { id: { in: ids.slice(1) } }, data: { reflectedAt: new Date() } });
    const [unreflected, evidence, readByPendingRun] = [ids[0] as string, ids[1] as string, ids[2] as string];
    const pendingRun = await insertRun(db, suite.playbookId, { status: "succeeded", createdAt: ago(41), latencyMs: 900 });
    await db.run.update({ where: { id: pendingRun }, data: { traceIds: [readByPendingRun] } });
    const citedFailedRun = await insertRun(db, suite.playbookId, { status: "failed", createdAt: ago(20), latencyMs: 1200 });
    const pending = await insertDelta(db, suite.playbookId, {
      status: "pending",
      createdAt: ago(39),
      traceIds: [evidence, "an-agents-own-id"],
      runIds: [citedFailedRun],
    });
    await db.run.update({ where: { id: pendingRun }, data: { deltaId: pending } });
    const failedRuns = [];
    for (let i = 0; i < 4; i += 1)
      failedRuns.push(
        await insertRun(db, suite.playbookId, {
          status: "failed",
          createdAt: ago(8 + i, i * 7),
          latencyMs: 300 + i * 100,
          role: i % 2 ? "curator" : "reflector",
        }),
      );
    const recentFailedRun = await insertRun(db, suite.playbookId, { status: "failed", createdAt: ago(2), latencyMs: 50 });
    const oldSucceededRun = await insertRun(db, suite.playbookId, { status: "succeeded", createdAt: ago(30), latencyMs: 700 });
    const rejected = [];
    for (let i = 0; i < 3; i += 1) {
      rejected.push(
        await insertDelta(db, suite.playbookId, {
          status: "rejected",
          createdAt: ago(100 + i, i * 13),
          decidedAt: ago(95 + i),
          nearDuplicate: i === 1,
        }),
      );
    }
    const recentRejected = await insertDelta(db, suite.playbookId, { status: "rejected", createdAt: ago(100), decidedAt: ago(10) });
    const oldApplied = await insertDelta(db, suite.playbookId, { status: "applied", createdAt: ago(120), decidedAt: ago(119) });
    return {
      ids,
      unreflected,
      evidence,
      readByPendingRun,
      pending,
      pendingRun,
      failedRuns,
      citedFailedRun,
      recentFailedRun,
      oldSucceededRun,
      rejected,
      recentRejected,
      oldApplied,
    };
  }

  it("removes expired traces, rejected deltas, failed runs and succeeded runs whose traces are gone, keeps what is still needed, and the charts show the same figures", async () => {
    const db = suite.database.db;
    const world = await seed();
    const before = await figures();
    expect(before.day.totals.traces).toBe(70);
    expect(before.hour.totals.traces).toBe(60);
    expect(before.all.review.byOrigin.find((row) => row.origin === "reflector")).toMatchObject({ rejected: 4, pending: 1, approved: 1 });

    const preview = await previewRetention(db);
    expect(preview.playbooks).toEqual([
      expect.objectContaining({
        name: "support",
        ownRetention: false,
        retention: { traces: 30, rejectedDeltas: 90, failedRuns: 7 },
        traces: 57,
        rejectedDeltas: 3,
        failedRuns: 4,
        exposures: 0,
        succeededRuns: 1,
      }),
    ]);

    const run = await runRetention(db, "retention", "schedule");
    expect(run).toMatchObject({
      trigger: "schedule",
      traces: 57,
      rejectedDeltas: 3,
      failedRuns: 4,
      exposures: 0,
      succeededRuns: 1,
      error: null,
    });
    expect(run.byPlaybook).toEqual([
      { playbookId: suite.playbookId, name: "support", traces: 57, rejectedDeltas: 3, failedRuns: 4, exposures: 0, succeededRuns: 1 },
    ]);

    const kept = await db.trace.findMany({ where: { timestamp: { lt: ago(30) } }, select: { id: true } });
    expect(kept.map((row) => row.id).sort()).toEqual([world.unreflected, world.evidence, world.readByPendingRun].sort());
    expect(await db.trace.count({ where: { timestamp: { gte: ago(30) } } })).toBe(10);
    expect(
      await db.run.findMany({
        where: { id: { in: [...world.failedRuns, world.citedFailedRun, world.recentFailedRun, world.oldSucceededRun, world.pendingRun] } },
        select: { id: true },
      }),
    ).toHaveLength(3);
    const deltas = await db.delta.findMany({ select: { id: true } });
    expect(deltas.map((row) => row.id).sort()).toEqual([world.pending, world.recentRejected, world.oldApplied].sort());

    // The same figures, to the last field: counts, rates, tokens, costs, quantiles, review, runs, earliest.
    const after = await figures();
    expect(after).toEqual(before);

    // Recorded: a run the Settings page reads, and one audit entry by the system.
    const entries = await db.auditEntry.findMany({
      where: { action: "retention.run" },
      select: { actorKind: true, actorName: true, summary: true },
    });
    expect(entries).toEqual([
      {
        actorKind: "system",
        actorName: "retention",
        summary: expect.objectContaining({ after: expect.objectContaining({ traces: 57, failedRuns: 4 }) }),
      },
    ]);
    // Nothing left: the next run removes nothing.
    expect((await previewRetention(db)).totals).toEqual({ traces: 0, rejectedDeltas: 0, failedRuns: 0, exposures: 0, succeededRuns: 0 });
  });

  it("a person's delete still takes traces off the charts: only retention's deletes leave the rollups alone", async () => {
    const db = suite.database.db;
    await seed();
    const before = await figures();
    await db.trace.deleteMany({ where: { externalId: { in: ["old-3", "old-4"] } } });
    const after = await figures();
    expect(after.day.totals.traces).toBe(before.day.totals.traces - 2);
  });

  it("deletes in batches: more expired traces than one batch are all removed", async () => {
    const db = suite.database.db;
    const traces = Array.from({ length: RETENTION_BATCH + 7 }, (_, i) => ({
      playbook: "support",
      task: `bulk ${i}`,
      timestamp: ago(31, i % 600).toISOString(),
      outcome: i % 2 ? "success" : "failure",
    }));
    for (let start = 0; start < traces.length; start += 1_000) await ingest(db, traces.slice(start, start + 1_000));
    await db.trace.updateMany({ data: { reflectedAt: new Date() } });
    const before = await figures();
    const run = await runRetention(db, "retention", "schedule");
    expect(run.traces).toBe(RETENTION_BATCH + 7);
    expect(await db.trace.count()).toBe(0);
    expect(await figures()).toEqual(before);
  });

  it("keeps the traces and exposures of an experiment until it is stopped and archived; its results stay the same", async () => {
    const db = suite.database.db;
    const { caller } = suite;
    await caller.experiments.create(twoVariants());
    await caller.experiments.update({ key: "tone", status: "running" });
    await ingest(
      db,
      Array.from({ length: 12 }, (_, i) => ({
        playbook: "support",
        task: `exp ${i}`,
        experiment: "tone",
        variant: i % 2 ? "A" : "B",
        unitId: `unit-${i % 6}`,
        outcome: i % 3 ? "success" : "failure",
        durationMs: 200 + i,
      })),
    );
    // Back-dated after ingestion, so they count in the experiment's phase.
    await db.$executeRaw`UPDATE "Trace" SET "timestamp" = "timestamp" - interval '40 days', "reflectedAt" = now()`;
    await db.$executeRaw`UPDATE "ExperimentExposure" SET "firstSeenAt" = "firstSeenAt" - interval '40 days'`;
    expect((await runRetention(db, "retention", "schedule")).traces).toBe(0);
    await caller.experiments.decide({ key: "tone", action: "stop" });
    const results = await caller.experiments.results({ key: "tone" });
    const charts = await figures();
    expect(results.variants.reduce((sum, variant) => sum + variant.traces, 0)).toBe(12);
    expect((await runRetention(db, "retention", "schedule")).traces).toBe(0);
    await expectAppError(caller.experiments.archive({ key: "nope" }), "NOT_FOUND", /nope/);

    const archived = await caller.experiments.archive({ key: "tone" });
    expect(archived.archivedAt).not.toBeNull();
    await expectAppError(caller.experiments.archive({ key: "tone" }), "BAD_REQUEST", /already archived/);
    await expectAppError(caller.experiments.update({ key: "tone", status: "running" }), "BAD_REQUEST", /archived/);
    const exposures = await db.experimentExposure.count();
    expect(exposures).toBe(6);
    const run = await runRetention(db, "retention", "schedule");
    expect(run).toMatchObject({ traces: 12, exposures: 6 });
    expect(await db.trace.count()).toBe(0);
    expect(await db.experimentExposure.count()).toBe(0);
    const comparable = (value: object) =>
      JSON.parse(
        JSON.stringify(value, (key, inner: unknown) => (["updatedAt", "archivedAt", "computedAt"].includes(key) ? undefined : inner)),
      ) as unknown;
    expect(comparable(await caller.experiments.results({ key: "tone" }))).toEqual(comparable(results));
    expect((await figures()).day.totals).toEqual(charts.day.totals);
  });

  it("a playbook's own days apply to it; null follows the studio default again; 0 or part of a day is refused", async () => {
    const { caller, playbookId } = suite;
    await expectAppError(
      caller.playbook.updateSettings({ playbookId, settings: { retention: { traces: 0 } } }),
      "BAD_REQUEST",
      /Retention of traces must be at least 1 day/,
    );
    await expectAppError(
      caller.playbook.updateSettings({ playbookId, settings: { retention: { failedRuns: 0.5 } } }),
      "BAD_REQUEST",
      /whole number of days/,
    );
    await expectAppError(
      caller.retention.setStudioDefault({ traces: 30, rejectedDeltas: -1, failedRuns: 7 }),
      "BAD_REQUEST",
      /Retention of rejected deltas must be at least 1 day/,
    );

    await caller.retention.setStudioDefault({ traces: 60, rejectedDeltas: 90, failedRuns: 7 });
    expect((await caller.playbook.get({ playbookId })).settings.retention).toEqual({ traces: 60, rejectedDeltas: 90, failedRuns: 7 });
    await ingest(suite.database.db, [{ playbook: "support", task: "t", timestamp: ago(45).toISOString(), outcome: "success" }]);
    await suite.database.db.trace.updateMany({ data: { reflectedAt: new Date() } });
    expect((await previewRetention(suite.database.db)).totals.traces).toBe(0);

    const own = await caller.playbook.updateSettings({ playbookId, settings: { retention: { traces: 40 } } });
    expect(own.settings.retention).toEqual({ traces: 40, rejectedDeltas: 90, failedRuns: 7 });
    expect(own.changed).toEqual(["retention.traces 60 → 40", "retention set for this playbook"]);
    expect((await caller.playbook.get({ playbookId })).ownRetention).toBe(true);
    expect((await previewRetention(suite.database.db)).totals.traces).toBe(1);

    const back = await caller.playbook.updateSettings({ playbookId, settings: { retention: null } });
    expect(back.settings.retention.traces).toBe(60);
    expect((await caller.playbook.get({ playbookId })).ownRetention).toBe(false);
    expect((await caller.retention.preview()).totals.traces).toBe(0);
  });

  it("runs now for an admin, records the run for the Settings page, and is refused to a viewer", async () => {
    const { caller } = suite;
    await seed();
    const run = await caller.retention.runNow();
    expect(run).toMatchObject({ trigger: "manual", traces: 57 });
    const status = await caller.retention.status();
    expect(status.lastRun).toMatchObject({ id: run.id, traces: 57, rejectedDeltas: 3, failedRuns: 4 });
    const entry = await suite.database.db.auditEntry.findFirst({
      where: { action: "retention.run" },
      select: { actorName: true, actorKind: true },
    });
    expect(entry).toEqual({ actorName: expect.stringMatching(/^ada/), actorKind: "user" });

    const viewer = callerAs(suite.database.db, "viewer", "vic");
    await expectAppError(viewer.retention.runNow(), "FORBIDDEN", /./);
    await expectAppError(viewer.retention.setStudioDefault({ traces: 1, rejectedDeltas: 1, failedRuns: 1 }), "FORBIDDEN", /./);
    expect((await viewer.retention.preview()).totals).toEqual({
      traces: 0,
      rejectedDeltas: 0,
      failedRuns: 0,
      exposures: 0,
      succeededRuns: 0,
    });
  });

  it("the daily job: one queued per day however many instances start, and each run queues the next day's", async () => {
    const db = suite.database.db;
    const first = await scheduleRetention(db, new Date("2026-01-10T10:00:00Z"));
    const second = await scheduleRetention(db, new Date("2026-01-10T11:00:00Z"));
    expect(second.id).toBe(first.id);
    expect(first.runAt).toEqual(new Date("2026-01-11T03:00:00Z"));
    expect(await db.job.count({ where: { kind: RETENTION_JOB } })).toBe(1);

    const handler = retentionHandlers()[RETENTION_JOB];
    if (!handler) throw new Error("no retention handler");
    const job = await db.job.findUniqueOrThrow({ where: { id: first.id } });
    const outcome = await handler(
      { ...job, status: "running", lockedBy: "w", lockedUntil: new Date() },
      {
        db,
        workerId: "w",
        signal: new AbortController().signal,
        extendLease: async () => true,
      },
    );
    expect(outcome).toEqual({ type: "done" });
    expect(await db.retentionRun.count({ where: { trigger: "schedule" } })).toBe(1);
    const queued = await db.job.findMany({ where: { kind: RETENTION_JOB }, select: { runAt: true, singletonKey: true } });
    expect(queued).toHaveLength(2);
    const tomorrow = queued.find((row) => row.singletonKey !== "retention:2026-01-11");
    expect(tomorrow?.runAt.getTime()).toBeGreaterThan(Date.now());
    expect(tomorrow?.runAt.getUTCHours()).toBe(3);
  });
});
