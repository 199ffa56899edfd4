// Metrics through GET /api/v1/playbooks/{name}/metrics and the tRPC procedures, on embedded PGlite
// and PostgreSQL, over a fixture with fixed timestamps (ingested as back-dated traces). The reference
// intervals are SciPy's: binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson").
import { describe, expect, it, vi } from "vitest";
import { insertTogether } from "@/server/db/client";
import { testEngines } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { loadSnapshot } from "@/server/deltas/engine-state";
import { parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";
import { backfillVersionFigures, newVersionFigures, type VersionWrite } from "./figures";
import { findFigures } from "./repositories/figures";
import type { MetricsResult, OverviewResult } from "./schemas";

// The runs domain would queue a reflection per trace; these tests count runs they create themselves.
vi.mock("@/server/runs/triggers", () => ({ onTracesStored: async () => undefined }));

const { GET } = await import("@/app/api/v1/playbooks/[name]/metrics/route");

interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Sunday 2026-03-01 to Thursday 2026-03-05 (Friday the 6th has nothing):
 *   Sun 1  23:59:59.999  1 success, no variant
 *   Mon 2  10 failures, variant A of "tone", every other hour from 00:00, the last at 23:59:59.999;
 *          durations 100 … 1000 ms
 *   Tue 3  10 successes, variant B of "tone", every other hour from 00:00:00.000; each 100 + 20
 *          tokens and $0.01, model gpt-4.1-mini
 *   Wed 4  80 traces, 37 successes: A of "other" 10 + 10, A of "tone" 7 + 13, B of "tone" 20 + 20
 *   Thu 5  2 unknown, variant B of "tone"
 */
function fixtureTraces() {
  const traces: Record<string, unknown>[] = [];
  const add = (timestamp: string, outcome: string, extra: Record<string, unknown> = {}) =>
    traces.push({
      playbook: "support",
      task: `task ${traces.length + 1}`,
      externalId: `f-${traces.length + 1}`,
      timestamp,
      outcome,
      ...extra,
    });
  add("2026-03-01T23:59:59.999Z", "success");
  for (let i = 0; i < 10; i += 1) {
    const time = i === 9 ? "2026-03-02T23:59:59.999Z" : `2026-03-02T${pad(i * 2)}:00:00.000Z`;
    add(time, "failure", { experiment: "tone", variant: "A", durationMs: (i + 1) * 100 });
  }
  for (let i = 0; i < 10; i += 1) {
    add(`2026-03-03T${pad(i * 2)}:00:00.000Z`, "success", {
      experiment: "tone",
      variant: "B",
      model: "gpt-4.1-mini",
      usage: { inputTokens: 100, outputTokens: 20, costUsd: 0.01 },
    });
  }
  const wednesday = (i: number) => `2026-03-04T${pad(Math.floor(i / 4))}:${pad((i % 4) * 15)}:00+00:00`;
  let i = 0;
  const group = (experiment: string, variant: string, successes: number, failures: number) => {
    for (let k = 0; k < successes; k += 1) add(wednesday(i++), "success", { experiment, variant });
    for (let k = 0; k < failures; k += 1) add(wednesday(i++), "failure", { experiment, variant });
  };
  group("other", "A", 10, 10);
  group("tone", "A", 7, 13);
  group("tone", "B", 20, 20);
  add("2026-03-05T12:00:00+01:00", "unknown", { experiment: "tone", variant: "B" });
  add("2026-03-05T12:00:00-01:00", "unknown", { experiment: "tone", variant: "B" });
  return traces;
}

/** SciPy's Wilson intervals, to about 1e-9. */
const WILSON = {
  "0/10": [0, 0.27753279986288926],
  "10/10": [0.7224672001371109, 1],
  "37/80": [0.3574799356278525, 0.5709564240873121],
  "1/1": [0.20654931437723745, 1],
} as const;

function expectInterval(actual: [number, number] | null, expected: readonly [number, number]) {
  expect(actual).not.toBeNull();
  expect(actual?.[0]).toBeCloseTo(expected[0], 9);
  expect(actual?.[1]).toBeCloseTo(expected[1], 9);
}

describe.each(testEngines())("metrics on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "tester"] });

  /** What POST /api/v1/traces does with the body (its own tests cover the route). */
  async function postFixture() {
    const result = await ingestTraces(suite.database.db, parseTraceBody(JSON.parse(JSON.stringify({ traces: fixtureTraces() }))), {
      source: "api",
    });
    expect(result.created).toBe(103);
  }

  async function get<T = MetricsResult>(query: string, name = "support"): Promise<{ status: number; body: T }> {
    const response = await GET(new Request(`http://localhost/api/v1/playbooks/${encodeURIComponent(name)}/metrics?${query}`), {
      params: Promise.resolve({ name }),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  const MARCH = "from=2026-03-01T10:00:00%2B02:00&to=2026-03-07T00:00:00Z";

  it("every day of the range is a bucket: from truncated to its day, to exclusive, empty days with zeros", async () => {
    await postFixture();
    const { status, body } = await get(`${MARCH}&bucket=day`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      playbook: "support",
      playbookId: suite.playbookId,
      bucket: "day",
      timezone: "UTC",
      experiment: null,
      variant: null,
    });
    // 10:00 at UTC+2 is 08:00 UTC on the 1st: its day starts at 00:00 UTC.
    expect(body.from).toBe("2026-03-01T00:00:00.000Z");
    expect(body.to).toBe("2026-03-07T00:00:00.000Z");
    expect(body.outcomes.map((b) => [b.start.slice(0, 10), b.traces, b.success, b.failure, b.unknown])).toEqual([
      ["2026-03-01", 1, 1, 0, 0],
      ["2026-03-02", 10, 0, 10, 0],
      ["2026-03-03", 10, 10, 0, 0],
      ["2026-03-04", 80, 37, 43, 0],
      ["2026-03-05", 2, 0, 0, 2],
      ["2026-03-06", 0, 0, 0, 0],
    ]);
    expect(body.outcomes[5]).toEqual({
      start: "2026-03-06T00:00:00.000Z",
      traces: 0,
      success: 0,
      failure: 0,
      unknown: 0,
      successRate: null,
      ci95: null,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      p50DurationMs: null,
      p95DurationMs: null,
    });
    expect(body.totals).toMatchObject({ traces: 103, success: 48, failure: 53, unknown: 2 });

    // `to` is exclusive: ending at 2026-03-05T00:00Z leaves the 5th out.
    const shorter = await get("from=2026-03-01&to=2026-03-05T00:00:00Z");
    expect(shorter.body.outcomes.map((b) => b.start.slice(0, 10))).toEqual(["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"]);
    // A `to` inside a day ends the last bucket early: 06:00 on the 3rd holds the traces of 00:00, 02:00, 04:00.
    const partial = await get("from=2026-03-03&to=2026-03-03T06:00:00Z");
    expect(partial.body.outcomes).toMatchObject([{ start: "2026-03-03T00:00:00.000Z", traces: 3 }]);
  });

  it("23:59:59.999Z and 00:00:00Z fall in different days, and in different hours", async () => {
    await postFixture();
    const days = await get("from=2026-03-02&to=2026-03-04&bucket=day");
    expect(days.body.outcomes.map((b) => b.traces)).toEqual([10, 10]);
    const hours = await get("from=2026-03-02T23:00:00Z&to=2026-03-03T01:00:00Z&bucket=hour");
    expect(hours.body.outcomes.map((b) => [b.start, b.traces, b.failure, b.success])).toEqual([
      ["2026-03-02T23:00:00.000Z", 1, 1, 0],
      ["2026-03-03T00:00:00.000Z", 1, 0, 1],
    ]);
  });

  it("weeks start on Monday at 00:00 UTC: Sunday 23:59:59.999 is the week before", async () => {
    await postFixture();
    const { body } = await get("from=2026-03-01&to=2026-03-09&bucket=week");
    expect(body.from).toBe("2026-02-23T00:00:00.000Z");
    expect(body.outcomes.map((b) => [b.start, b.traces])).toEqual([
      ["2026-02-23T00:00:00.000Z", 1],
      ["2026-03-02T00:00:00.000Z", 102],
    ]);
  });

  it("the success rate leaves unknown outcomes out and its ci95 is the Wilson interval (0 of 0, 0 of 10, 10 of 10, 37 of 80)", async () => {
    await postFixture();
    const { body } = await get(`${MARCH}&bucket=day`);
    const [sunday, monday, tuesday, wednesday, thursday] = body.outcomes;
    expectInterval(sunday!.ci95, WILSON["1/1"]);
    expect(monday).toMatchObject({ successRate: 0 });
    expectInterval(monday!.ci95, WILSON["0/10"]);
    expect(monday!.ci95![0]).toBe(0);
    expect(tuesday).toMatchObject({ successRate: 1 });
    expectInterval(tuesday!.ci95, WILSON["10/10"]);
    expect(tuesday!.ci95![1]).toBe(1);
    expect(wednesday!.successRate).toBeCloseTo(37 / 80, 12);
    expectInterval(wednesday!.ci95, WILSON["37/80"]);
    // Two unknown outcomes: counted, but nothing to rate.
    expect(thursday).toMatchObject({ traces: 2, unknown: 2, successRate: null, ci95: null });
  });

  it("a series per variant, and the variant filter with and without an experiment", async () => {
    await postFixture();
    const all = await get(`${MARCH}&bucket=day`);
    expect(all.body.outcomesByVariant.map((s) => s.variant)).toEqual(["A", "B"]);
    const [a, b] = all.body.outcomesByVariant;
    expect(a!.outcomes.map((o) => [o.traces, o.success, o.failure])).toEqual([
      [0, 0, 0],
      [10, 0, 10],
      [0, 0, 0],
      [40, 17, 23],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(b!.outcomes.map((o) => [o.traces, o.success, o.failure, o.unknown])).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [10, 10, 0, 0],
      [40, 20, 20, 0],
      [2, 0, 0, 2],
      [0, 0, 0, 0],
    ]);
    expect(a!.totals).toMatchObject({ traces: 50, success: 17, failure: 33 });
    expect(b!.totals).toMatchObject({ traces: 52, success: 30, failure: 20, unknown: 2 });

    // variant without experiment: the label in any experiment (A of "other" and A of "tone").
    const variantA = await get(`${MARCH}&variant=A`);
    expect(variantA.body).toMatchObject({ variant: "A", experiment: null, totals: { traces: 50, success: 17, failure: 33 } });
    expect(variantA.body.outcomes.map((o) => o.traces)).toEqual([0, 10, 0, 40, 0, 0]);
    expect(variantA.body.outcomesByVariant.map((s) => s.variant)).toEqual(["A"]);

    const toneA = await get(`${MARCH}&experiment=tone&variant=A`);
    expect(toneA.body.outcomes.map((o) => [o.traces, o.success])).toEqual([
      [0, 0],
      [10, 0],
      [0, 0],
      [20, 7],
      [0, 0],
      [0, 0],
    ]);
    const other = await get(`${MARCH}&experiment=other`);
    expect(other.body.totals).toMatchObject({ traces: 20, success: 10, failure: 10 });
    const nobody = await get(`${MARCH}&variant=C`);
    expect(nobody.body.totals.traces).toBe(0);
    expect(nobody.body.outcomes).toHaveLength(6);
  });

  it("back-dated traces count when they ran, not when they were received", async () => {
    await postFixture();
    const stored = await suite.database.db.trace.findFirstOrThrow({
      where: { externalId: "f-1" },
      select: { createdAt: true, timestamp: true },
    });
    expect(stored.timestamp.toISOString()).toBe("2026-03-01T23:59:59.999Z");
    expect(stored.createdAt.getTime()).toBeGreaterThan(Date.now() - 5 * 60_000);
    const today = await get(`from=${new Date(Date.now() - 86_400_000).toISOString()}&bucket=hour`);
    expect(today.body.totals.traces).toBe(0);
    expect(today.body.outcomes.length).toBeGreaterThanOrEqual(24);
    expect(today.body.earliest).toBe("2026-03-01T23:59:59.999Z");
  });

  it("durations (percentile_cont) and the agent's tokens and cost per bucket, also as the agent's LLM row", async () => {
    await postFixture();
    const { body } = await get(`${MARCH}&bucket=day`);
    // 100 … 1000 ms: the median interpolates between 500 and 600, p95 between 900 and 1000 (NumPy: 550, 955).
    expect(body.outcomes[1]!.p50DurationMs).toBe(550);
    expect(body.outcomes[1]!.p95DurationMs).toBeCloseTo(955, 9);
    expect(body.outcomes[2]).toMatchObject({ inputTokens: 1000, outputTokens: 200, p50DurationMs: null });
    expect(body.outcomes[2]!.costUsd).toBeCloseTo(0.1, 12);
    const agent = body.llm.buckets.filter((row) => row.role === "agent");
    expect(agent.map((row) => row.runs)).toEqual([1, 10, 10, 80, 2, 0]);
    expect(agent[2]).toMatchObject({ inputTokens: 1000, outputTokens: 200, uncosted: 0, failed: null, retried: null });
    expect(agent[1]).toMatchObject({ uncosted: 10, p50LatencyMs: 550 });
    expect(agent[1]!.p95LatencyMs).toBeCloseTo(955, 9);
    expect(body.llm.byRole.find((row) => row.role === "agent")).toMatchObject({ runs: 103, inputTokens: 1000, outputTokens: 200 });
  });

  it("reflector and curator runs per bucket and role: tokens, cost, latency quantiles, failed and retried", async () => {
    const run = (role: "reflector" | "curator", createdAt: string, fields: Record<string, unknown>) =>
      suite.database.db.run.create({
        data: {
          playbookId: suite.playbookId,
          role,
          provider: "offline",
          model: "rules",
          status: "succeeded",
          createdAt: new Date(createdAt),
          attempts: 1,
          ...fields,
        },
      });
    await run("reflector", "2026-03-02T01:00:00Z", { latencyMs: 100, inputTokens: 500, outputTokens: 50, costUsd: 0.001 });
    await run("reflector", "2026-03-02T02:00:00Z", { latencyMs: 200, inputTokens: 500, outputTokens: 50, costUsd: 0.002, attempts: 2 });
    await run("reflector", "2026-03-02T23:59:59.999Z", { latencyMs: 600, status: "failed", attempts: 3 });
    await run("curator", "2026-03-04T12:00:00Z", { latencyMs: 2000, inputTokens: 3000, outputTokens: 400, costUsd: 0.01 });
    const { body } = await get(`${MARCH}&bucket=day`);
    const of = (role: string) => body.llm.buckets.filter((row) => row.role === role);
    expect(body.llm.buckets.map((row) => row.role)).toEqual([
      ...Array(6).fill("reflector"),
      ...Array(6).fill("curator"),
      ...Array(6).fill("agent"),
    ]);
    expect(of("reflector").map((row) => row.runs)).toEqual([0, 3, 0, 0, 0, 0]);
    expect(of("reflector")[1]).toMatchObject({
      start: "2026-03-02T00:00:00.000Z",
      runs: 3,
      failed: 1,
      retried: 2,
      inputTokens: 1000,
      outputTokens: 100,
      uncosted: 1,
      p50LatencyMs: 200,
      p95LatencyMs: 560,
    });
    expect(of("reflector")[1]!.costUsd).toBeCloseTo(0.003, 12);
    expect(of("curator")[3]).toMatchObject({ runs: 1, failed: 0, inputTokens: 3000, p50LatencyMs: 2000, p95LatencyMs: 2000 });
    expect(of("curator")[0]).toMatchObject({ runs: 0, costUsd: 0, p50LatencyMs: null });
    expect(body.llm.byRole.map((row) => [row.role, row.runs])).toEqual([
      ["reflector", 3],
      ["curator", 1],
      ["agent", 0],
    ]);
  });

  it("review per bucket and origin: proposed, decided, auto-applied, near-duplicates and time to decision", async () => {
    const delta = (
      origin: "curator" | "reflector",
      status: "applied" | "rejected" | "pending" | "auto_applied",
      createdAt: string,
      decidedAt?: string,
      nearDuplicate = false,
    ) =>
      suite.database.db.delta.create({
        data: {
          playbookId: suite.playbookId,
          origin,
          status,
          author: origin,
          baseVersion: 1,
          createdAt: new Date(createdAt),
          decidedAt: decidedAt ? new Date(decidedAt) : null,
          operations: {
            create: [
              { position: 0, type: "add", payload: {}, flags: nearDuplicate ? [{ kind: "near_duplicate", severity: "warning" }] : [] },
            ],
          },
        },
      });
    await delta("curator", "applied", "2026-03-02T10:00:00Z", "2026-03-02T12:00:00Z", true);
    await delta("curator", "rejected", "2026-03-02T10:00:00Z", "2026-03-03T10:00:00Z");
    await delta("curator", "pending", "2026-03-04T09:00:00Z", undefined, true);
    await delta("reflector", "auto_applied", "2026-03-03T08:00:00Z", "2026-03-03T08:00:00Z");
    const { body } = await get(`${MARCH}&bucket=day`);
    expect(body.review.buckets.map((row) => `${row.origin} ${row.start.slice(5, 10)} ${row.proposed}`)).toEqual([
      "curator 03-01 0",
      "curator 03-02 2",
      "curator 03-03 0",
      "curator 03-04 1",
      "curator 03-05 0",
      "curator 03-06 0",
      "reflector 03-01 0",
      "reflector 03-02 0",
      "reflector 03-03 1",
      "reflector 03-04 0",
      "reflector 03-05 0",
      "reflector 03-06 0",
    ]);
    expect(body.review.buckets[1]).toMatchObject({ approved: 1, rejected: 1, nearDuplicates: 1, medianDecisionMs: 13 * 3_600_000 });
    const curator = body.review.byOrigin.find((row) => row.origin === "curator");
    expect(curator).toMatchObject({
      proposed: 3,
      approved: 1,
      rejected: 1,
      pending: 1,
      autoApplied: 0,
      nearDuplicates: 2,
      acceptanceRate: 0.5,
      autoAppliedShare: 0,
      medianDecisionMs: 13 * 3_600_000,
    });
    expect(curator!.p90DecisionMs).toBeCloseTo(21.8 * 3_600_000, 3); // percentile_cont: 2 h + 0.9 × 22 h
    expectInterval(curator!.ci95, [0.09453120573423074, 0.9054687942657693]); // SciPy: 1 of 2
    expect(body.review.byOrigin.find((row) => row.origin === "reflector")).toMatchObject({
      proposed: 1,
      autoApplied: 1,
      acceptanceRate: 1,
      autoAppliedShare: 1,
      medianDecisionMs: null,
    });
  });

  it("each bad parameter is a 400 naming it, an unknown playbook a 404", async () => {
    const cases: [string, string, RegExp][] = [
      ["from=yesterday", "from", /ISO 8601/],
      ["from=2026-03-01T00:00:00", "from", /zone offset/],
      ["to=2026-13-01", "to", /ISO 8601/],
      ["from=2026-03-02&to=2026-03-02", "to", /later than from/],
      ["from=2026-03-02&to=2026-03-01", "to", /later than from/],
      ["bucket=month", "bucket", /"hour", "day" or "week"/],
      ["variant=", "variant", /empty/],
      [`variant=${"x".repeat(101)}`, "variant", /100 characters/],
      ["experiment=", "experiment", /empty/],
      ["contentOnly=maybe", "contentOnly", /true or false/],
      ["scoresAt=first", "scoresAt", /version number/],
      ["scoresAt=0", "scoresAt", /count from 1/],
      ["bucket=day&bucket=week", "bucket", /given 2 times/],
      ["buckets=day", "buckets", /Unknown parameter/],
    ];
    for (const [query, parameter, message] of cases) {
      const { status, body } = await get<ErrorBody>(query);
      expect(status, query).toBe(400);
      expect(body.error.code, query).toBe("INVALID_INPUT");
      expect(
        body.error.issues?.map((issue) => issue.path),
        query,
      ).toEqual([parameter]);
      expect(body.error.issues?.[0]?.message, query).toMatch(message);
    }
    // 5,001 hours: a wider bucket is named; a range of 5,000 is fine.
    const tooMany = await get<ErrorBody>("from=2026-01-01T00:00:00Z&to=2026-07-28T09:00:00Z&bucket=hour");
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.issues).toEqual([
      { path: "bucket", message: expect.stringMatching(/5,001 hour buckets.*bucket=day or bucket=week/) },
    ]);
    expect((await get("from=2026-01-01T00:00:00Z&to=2026-07-28T08:00:00Z&bucket=hour")).body.outcomes).toHaveLength(5_000);

    const missing = await get<ErrorBody>(MARCH, "Support");
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/"Support" was not found/);
    const noVersion = await get<ErrorBody>(`${MARCH}&scoresAt=99`);
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.error.message).toMatch(/scoresAt/);
    await expectAppError(
      suite.caller.metrics.playbook({ playbookId: suite.playbookId, from: new Date("2026-03-02"), to: new Date("2026-03-01") }),
      "BAD_REQUEST",
      /later than from/,
    );
  });

  it("tRPC answers what the HTTP endpoint answers", async () => {
    await postFixture();
    const { body } = await get(`${MARCH}&bucket=day&variant=B`);
    const viaTrpc = await suite.caller.metrics.playbook({
      playbookId: suite.playbookId,
      from: new Date("2026-03-01T08:00:00Z"),
      to: new Date("2026-03-07T00:00:00Z"),
      bucket: "day",
      variant: "B",
    });
    expect(JSON.parse(JSON.stringify(viaTrpc))).toEqual(body);
  });

  it("versions carry their figures: content-changing ones by default, every one with contentOnly=false", async () => {
    const proposed = await suite.caller.delta.propose({
      playbookId: suite.playbookId,
      rationale: "A lesson",
      operations: [
        { operation: { type: "add", section: "strategies_and_insights", content: "Cache the list of supported currencies per session." } },
        { operation: { type: "remove", bulletId: "str-00002", reason: "Harmful" } },
      ],
    });
    await suite.caller.delta.approve({ deltaId: proposed.deltaId });
    await suite.caller.delta.edit({
      playbookId: suite.playbookId,
      operations: [{ type: "tag", bulletId: "str-00001", helpful: 2, harmful: 1 }],
      reason: "Reflection",
    });
    // Until commitChanges stores figures itself, the start-up backfill does; either way every version has them.
    await backfillVersionFigures(suite.database.db);

    const now = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}&bucket=hour`;
    const content = await get(now);
    expect(content.body.contentOnly).toBe(true);
    expect(content.body.versions.map((v) => [v.version, v.origin, v.contentChanged])).toEqual([
      [1, "import", true],
      [2, "person", true], // a person's proposal (the caller), approved
    ]);
    expect(content.body.versions[1]).toMatchObject({
      operations: { add: 1, remove: 1 },
      activeBullets: 4,
      archivedBullets: 1,
      sections: [
        { name: "strategies_and_insights", activeBullets: 3 },
        { name: "common_mistakes_to_avoid", activeBullets: 1 },
      ],
      helpful: 5,
      harmful: 0,
    });
    // The compiled playbook's tokens are what the context endpoint counts for an unlimited budget.
    const context = await suite.caller.context.get({ playbookId: suite.playbookId, budget: 2_000_000 });
    const every = await get(`${now}&contentOnly=false`);
    expect(every.body.versions.map((v) => [v.version, v.origin, v.contentChanged, v.countersChanged])).toEqual([
      [1, "import", true, false],
      [2, "person", true, false],
      [3, "person", false, true],
    ]);
    expect(every.body.versions[2]).toMatchObject({ operations: { tag: 1 }, helpful: 7, harmful: 1, tokens: context.tokens });
    expect(every.body.scores).toEqual({
      version: 3,
      distribution: [
        [0, 2],
        [2, 1],
        [4, 1],
      ],
    });
    expect((await get(`${now}&scoresAt=1`)).body.scores).toEqual({
      version: 1,
      distribution: [
        [-3, 1],
        [0, 1],
        [2, 1],
        [3, 1],
      ],
    });

    // Counter totals are a time series of every version, whatever contentOnly says.
    const counters = content.body.counters.filter((bucket) => bucket.version !== null);
    expect(counters.at(-1)).toMatchObject({ version: 3, helpful: 7, harmful: 1 });
    expect(content.body.movers.rose).toEqual([
      expect.objectContaining({ bulletId: "str-00001", helpfulChange: 2, harmfulChange: 1, scoreChange: 1, helpful: 5, harmful: 1 }),
    ]);
    const churn = content.body.churn.find((bucket) => Object.keys(bucket.operations).length > 0 && bucket.byOrigin.person);
    expect(churn?.byOrigin.person).toEqual({ add: 1, remove: 1, tag: 1 }); // the proposal and the edit, both by the person

    const figures = await suite.caller.metrics.versionFigures({ playbookId: suite.playbookId, version: 2 });
    expect(figures).toMatchObject({
      version: 2,
      origin: "person",
      scores: [
        [0, 2],
        [2, 1],
        [3, 1],
      ],
    });
    // Before the range: the last version before it, for series that start at `from`.
    const later = await get(
      `from=${new Date(Date.now() + 2 * 3_600_000).toISOString()}&to=${new Date(Date.now() + 3 * 3_600_000).toISOString()}&bucket=hour`,
    );
    expect(later.body.versions).toEqual([]);
    expect(later.body.previousVersion).toMatchObject({ version: 2 });
    expect(later.body.counters[0]).toMatchObject({ version: 3, helpful: 7, harmful: 1 });
  });

  it("figures are recorded with a version from the previous ones, or from the state, and backfilled once", async () => {
    const proposed = await suite.caller.delta.propose({
      playbookId: suite.playbookId,
      operations: [
        { operation: { type: "add", section: "common_mistakes_to_avoid", content: "Assuming the first page holds every result." } },
      ],
    });
    await suite.caller.delta.approve({ deltaId: proposed.deltaId });
    await suite.caller.delta.edit({
      playbookId: suite.playbookId,
      operations: [{ type: "tag", bulletId: "mis-00004", harmful: 2 }],
      reason: "Reflection",
    });

    await backfillVersionFigures(suite.database.db);
    const stored = await suite.database.db.playbookFigures.findMany({
      where: { playbookId: suite.playbookId },
      orderBy: { version: "asc" },
      omit: { id: true },
    });
    expect(stored.map((row) => row.version)).toEqual([1, 2, 3]);
    const versions = await suite.database.db.playbookVersion.findMany({
      where: { playbookId: suite.playbookId },
      orderBy: { number: "asc" },
    });
    expect(stored.map((row) => row.recordedAt.toISOString())).toEqual(versions.map((v) => v.createdAt.toISOString()));

    // Run again: nothing left to fill. Remove some and it fills exactly those, with the same figures.
    expect(await backfillVersionFigures(suite.database.db)).toEqual({ playbooks: 0, versions: 0 });
    await suite.database.db.playbookFigures.deleteMany({ where: { playbookId: suite.playbookId, version: { gte: 2 } } });
    expect(await backfillVersionFigures(suite.database.db)).toEqual({ playbooks: 1, versions: 2 });
    expect(
      await suite.database.db.playbookFigures.findMany({
        where: { playbookId: suite.playbookId },
        orderBy: { version: "asc" },
        omit: { id: true },
      }),
    ).toEqual(stored);

    // The write path: from the previous version's figures and the version's changes.
    await suite.database.db.playbookFigures.deleteMany({ where: { playbookId: suite.playbookId, version: 3 } });
    const changes = versions[2]!.operations as never;
    const { playbookId: _playbook, version: _version, recordedAt: _recorded, ...figuresOf3 } = stored[2]!;
    expect(figuresOf3).toMatchObject({ contentChanged: false, countersChanged: true, operations: { tag: 1 } });
    // What recordVersion does with them: stored with the version's own INSERT.
    const recordFigures = (write: VersionWrite) =>
      suite.database.db.$transaction(async (tx) => {
        const made = await newVersionFigures(tx, write);
        if (made) await insertTogether(tx, [made.insert]);
        return made?.figures ?? null;
      });
    const recorded = await recordFigures({ playbookId: suite.playbookId, version: 3, changes });
    expect(recorded).toEqual(figuresOf3);
    expect(await findFigures(suite.database.db, suite.playbookId, 3)).not.toBeNull();

    // Neither previous figures nor a state: nothing is stored (the backfill will) …
    await suite.database.db.playbookFigures.deleteMany({ where: { playbookId: suite.playbookId, version: { gte: 2 } } });
    expect(await recordFigures({ playbookId: suite.playbookId, version: 3, changes })).toBeNull();
    expect(await findFigures(suite.database.db, suite.playbookId, 3)).toBeNull();
    // … and with the delta engine's state of the version, the figures come from the state.
    const { entry } = await loadSnapshot(suite.database.db, suite.playbookId);
    expect(entry.version).toBe(3);
    const fromState = await recordFigures({ playbookId: suite.playbookId, version: 3, changes, state: entry.state });
    expect(fromState).toEqual(figuresOf3);
  });

  it("the hourly rollups equal the rows they count through inserts, updates and deletes", async () => {
    await postFixture();
    const { db } = suite.database;
    const run = await db.run.create({
      data: {
        playbookId: suite.playbookId,
        role: "reflector",
        provider: "offline",
        model: "rules",
        status: "queued",
        createdAt: new Date("2026-03-02T05:00:00Z"),
      },
    });
    // A run goes through its states; each update moves its counts.
    await db.run.update({ where: { id: run.id }, data: { status: "running", attempts: 1 } });
    await db.run.update({ where: { id: run.id }, data: { status: "failed", attempts: 2, latencyMs: 700 } });
    await db.run.update({
      where: { id: run.id },
      data: { status: "succeeded", attempts: 3, latencyMs: 900, costUsd: 0.002, inputTokens: 10 },
    });
    await db.run.create({
      data: {
        playbookId: suite.playbookId,
        role: "curator",
        provider: "offline",
        model: "rules",
        createdAt: new Date("2026-03-02T05:30:00Z"),
        latencyMs: 900,
      },
    });
    // Traces change outcome, move hour or variant, lose their duration, or go; a reflection changes nothing counted.
    await db.trace.updateMany({ where: { externalId: { in: ["f-2", "f-3"] } }, data: { outcome: "success", durationMs: 5 } });
    await db.trace.updateMany({
      where: { externalId: "f-4" },
      data: { timestamp: new Date("2026-03-06T10:00:00Z"), variant: "C", durationMs: null },
    });
    await db.trace.updateMany({ where: { externalId: { startsWith: "f-1" } }, data: { reflectedAt: new Date() } });
    await db.trace.deleteMany({ where: { externalId: { in: ["f-5", "f-6", "f-30", "f-31"] } } });

    const traceRollup = await db.$queryRaw<unknown[]>`
      SELECT "playbookId"::text, hour, experiment, variant, traces, success, failure, unknown, "inputTokens", "outputTokens",
        round("costUsd"::numeric, 9)::float8 AS cost, uncosted, ARRAY(SELECT v FROM unnest(durations) v ORDER BY v) AS durations
      FROM "TraceHourly" ORDER BY 1, 2, 3, 4`;
    const traceRows = await db.$queryRaw<unknown[]>`
      SELECT "playbookId"::text, date_trunc('hour', "timestamp") AS hour, COALESCE(experiment, '') AS experiment,
        COALESCE(variant, '') AS variant, count(*)::int AS traces, (count(*) FILTER (WHERE outcome = 'success'))::int AS success,
        (count(*) FILTER (WHERE outcome = 'failure'))::int AS failure, (count(*) FILTER (WHERE outcome = 'unknown'))::int AS unknown,
        COALESCE(sum("inputTokens"), 0)::float8 AS "inputTokens", COALESCE(sum("outputTokens"), 0)::float8 AS "outputTokens",
        round(COALESCE(sum("costUsd"), 0)::numeric, 9)::float8 AS cost, (count(*) FILTER (WHERE "costUsd" IS NULL))::int AS uncosted,
        COALESCE(array_agg("durationMs" ORDER BY "durationMs") FILTER (WHERE "durationMs" IS NOT NULL), ARRAY[]::int[]) AS durations
      FROM "Trace" GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;
    expect(traceRollup.length).toBeGreaterThan(30);
    expect(traceRollup).toEqual(traceRows);

    const runRollup = await db.$queryRaw<unknown[]>`
      SELECT hour, role::text, runs, failed, retried, "inputTokens", "outputTokens", round("costUsd"::numeric, 9)::float8 AS cost, uncosted,
        ARRAY(SELECT v FROM unnest(latencies) v ORDER BY v) AS latencies
      FROM "RunHourly" ORDER BY 1, 2`;
    expect(runRollup).toEqual(
      [
        {
          hour: new Date("2026-03-02T05:00:00Z"),
          role: "reflector",
          runs: 1,
          failed: 0,
          retried: 1,
          inputTokens: 10,
          outputTokens: 0,
          cost: 0.002,
          uncosted: 0,
          latencies: [900],
        },
        {
          hour: new Date("2026-03-02T05:00:00Z"),
          role: "curator",
          runs: 1,
          failed: 0,
          retried: 0,
          inputTokens: 0,
          outputTokens: 0,
          cost: 0,
          uncosted: 1,
          latencies: [900],
        },
      ].sort((a, b) => a.role.localeCompare(b.role)),
    );

    // What the metrics read agrees: the moved trace is on the 6th, the deleted ones are gone.
    const { body } = await get(`${MARCH}&bucket=day`);
    expect(body.outcomes.map((b) => b.traces)).toEqual([1, 7, 10, 78, 2, 1]);
    expect(body.outcomes[1]).toMatchObject({ success: 2, failure: 5 });
    expect(body.outcomesByVariant.map((s) => s.variant)).toEqual(["A", "B", "C"]);

    // Deleting the playbook takes its rollups with it.
    await db.playbook.deleteMany({ where: { id: suite.playbookId } });
    expect(await db.traceHourly.count()).toBe(0);
    expect(await db.runHourly.count()).toBe(0);
  });

  it("the studio overview: a row per playbook with its success rate per bucket, the change against the range before, pending deltas", async () => {
    await postFixture();
    await suite.caller.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "quiet" } });
    await suite.caller.delta.propose({
      playbookId: suite.playbookId,
      operations: [{ operation: { type: "add", section: "common_mistakes_to_avoid", content: "Pending." } }],
    });
    const overview: OverviewResult = await suite.caller.metrics.overview({
      from: new Date("2026-03-04T00:00:00Z"),
      to: new Date("2026-03-06T00:00:00Z"),
      bucket: "day",
    });
    expect(overview).toMatchObject({ from: "2026-03-04T00:00:00.000Z", previousFrom: "2026-03-02T00:00:00.000Z", timezone: "UTC" });
    expect(overview.playbooks.map((row) => row.name)).toEqual(["quiet", "support"]);
    const support = overview.playbooks[1]!;
    expect(support).toMatchObject({ traces: 82, success: 37, failure: 43, unknown: 2, previousTraces: 20, pendingDeltas: 1 });
    expect(support.successRate).toBeCloseTo(37 / 80, 12);
    expect(support.previousSuccessRate).toBe(0.5);
    expect(support.change).toBeCloseTo(37 / 80 - 0.5, 12);
    expectInterval(support.ci95, WILSON["37/80"]);
    expect(support.series).toEqual([
      { start: "2026-03-04T00:00:00.000Z", traces: 80, successRate: 37 / 80 },
      { start: "2026-03-05T00:00:00.000Z", traces: 2, successRate: null },
    ]);
    expect(overview.playbooks[0]).toMatchObject({ traces: 0, successRate: null, change: null, pendingDeltas: 0 });
    expect(overview.playbooks[0]!.series).toHaveLength(2);
  });
});
