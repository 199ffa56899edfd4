// Experiments through /api/v1/experiments/**, trace ingestion, the variant's context and the tRPC
// procedures, on embedded PGlite and PostgreSQL. The reference results are SciPy's
// (reference/compute.py writes reference/expected.json from reference/inputs.json); the simulated
// agents' outcomes, costs and durations come from there too, and so does the variant GrowthBook's
// hashing gives each agent, computed in Python from the formula.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { assignVariant } from "@/server/ace/experiments";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK, twoVariants } from "@/server/testing/fixtures";
import { expectClose, expectPairClose } from "@/server/testing/reference-values";
import { callerAs } from "@/server/trpc/callers";
import { DEFINITION_TTL_MS } from "./definitions";
import reference from "./reference/expected.json";
import inputs from "./reference/inputs.json";
import type { AssignmentResult, ExperimentDefinition, ExperimentResults } from "./schemas";

// The runs domain would queue a reflection per trace; nothing here is about runs.
vi.mock("@/server/runs/triggers", () => ({ onTracesStored: async () => undefined }));

const experimentsRoute = await import("@/app/api/v1/experiments/route");
const experimentRoute = await import("@/app/api/v1/experiments/[key]/route");
const assignRoute = await import("@/app/api/v1/experiments/[key]/assign/route");
const resultsRoute = await import("@/app/api/v1/experiments/[key]/results/route");
const tracesRoute = await import("@/app/api/v1/traces/route");
const contextRoute = await import("@/app/api/v1/playbooks/[name]/context/route");

interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[]; details?: Record<string, unknown> | null };
}

type Handler<P> = (request: Request, context?: { params: Promise<P> }) => Promise<Response>;

async function call<T, P = Record<string, never>>(
  handler: Handler<P>,
  method: string,
  path: string,
  options: { body?: unknown; params?: P; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const request = new Request(`http://localhost${path}`, {
    method,
    headers: { "content-type": "application/json", ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const response = await handler(request, options.params ? { params: Promise.resolve(options.params) } : undefined);
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
}

const create = <T = ExperimentDefinition>(body: unknown) => call<T>(experimentsRoute.POST, "POST", "/api/v1/experiments", { body });
const patch = <T = ExperimentDefinition>(key: string, body: unknown) =>
  call<T, { key: string }>(experimentRoute.PATCH, "PATCH", `/api/v1/experiments/${key}`, { body, params: { key } });
const getDefinition = <T = ExperimentDefinition>(key: string) =>
  call<T, { key: string }>(experimentRoute.GET, "GET", `/api/v1/experiments/${key}`, { params: { key } });
const assign = <T = AssignmentResult>(key: string, body: unknown) =>
  call<T, { key: string }>(assignRoute.POST, "POST", `/api/v1/experiments/${key}/assign`, { body, params: { key } });
const results = <T = ExperimentResults>(key: string, query = "") =>
  call<T, { key: string }>(resultsRoute.GET, "GET", `/api/v1/experiments/${key}/results${query}`, { params: { key } });
const postTraces = <T = { created: number }>(body: unknown) => call<T>(tracesRoute.POST, "POST", "/api/v1/traces", { body });
const context = (name: string, query: string, headers: Record<string, string> = {}) =>
  call<{ version: number; context: string; tokens: number } | null, { name: string }>(
    contextRoute.GET,
    "GET",
    `/api/v1/playbooks/${encodeURIComponent(name)}/context?${query}`,
    { params: { name }, headers },
  );

/** Runs the promises of `items` a few at a time, as several agents would. */
async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(each));
}

describe.each(testEngines())("experiments on %s", (engine) => {
  let database: TestDatabase;
  let curator: ReturnType<typeof callerAs>;
  let playbookId: string;

  beforeAll(async () => {
    database = await openTestDatabase(engine, { serve: true });
    curator = callerAs(database.db, "curator", "alice");
  });
  afterAll(async () => database?.close());
  beforeEach(async () => {
    await database.reset();
    ({ playbookId } = await curator.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "support" } }));
  });

  const counts = async () => ({
    experiments: await database.db.experiment.count(),
    variants: await database.db.experimentVariant.count(),
    phases: await database.db.experimentPhase.count(),
    exposures: await database.db.experimentExposure.count(),
  });

  describe("definitions", () => {
    it("creating answers 201 with what a GrowthBook SDK needs, and an existing key is a 409", async () => {
      const created = await create(twoVariants({ status: "running", coverage: 0.8 }));
      expect(created.status).toBe(201);
      expect(created.headers.get("location")).toBe("/api/v1/experiments/tone");
      expect(created.body).toMatchObject({
        key: "tone",
        playbook: "support",
        status: "running",
        control: "A",
        seed: "tone",
        hashVersion: 2,
        hashAttribute: "id",
        weights: [0.5, 0.5],
        coverage: 0.8,
        variations: ["A", "B"],
        variants: [
          { key: "A", name: "Control", weight: 0.5, target: { kind: "latest" }, latest: true },
          { key: "B", name: "Curated", weight: 0.5, target: { kind: "latest" }, latest: true },
        ],
        phase: { number: 1, seed: "tone", coverage: 0.8, weights: [0.5, 0.5], endedAt: null },
        growthbook: { key: "tone", seed: "tone", hashVersion: 2, variations: ["A", "B"], weights: [0.5, 0.5], coverage: 0.8, phase: "1" },
        createdBy: "local user",
      });
      expect((await getDefinition("tone")).body).toEqual(created.body);

      const again = await create<ErrorBody>(twoVariants());
      expect(again.status).toBe(409);
      expect(again.body.error.message).toMatch(/key "tone" already exists/);
      expect(await counts()).toMatchObject({ experiments: 1, variants: 2, phases: 1 });
    });

    it.each([
      [
        "weights that do not sum to 1",
        {
          variants: [
            { key: "A", weight: 0.5 },
            { key: "B", weight: 0.4 },
          ],
        },
        "variants",
        /sum to 1 \(±0\.001\); they sum to 0\.9/,
      ],
      ["a single variant", { variants: [{ key: "A", weight: 1 }] }, "variants", /at least 2 variants/],
      ["eleven variants", { variants: Array.from({ length: 11 }, (_, i) => ({ key: `v${i}` })) }, "variants", /at most 10 variants/],
      ["duplicate variant keys", { variants: [{ key: "A" }, { key: "A" }] }, "variants.1.key", /"A" is used twice/],
      [
        "some weights missing",
        { variants: [{ key: "A", weight: 0.5 }, { key: "B" }] },
        "variants.1.weight",
        /every variant a weight, or none/,
      ],
      ["two targets", { variants: [{ key: "A" }, { key: "B", latest: true, playbookVersion: 1 }] }, "variants.1.latest", /one target/],
      ["a key that is not a slug", { key: "Tone V2" }, "key", /slug/],
      ["coverage above 1", { coverage: 1.5 }, "coverage", /at most 1/],
    ])("%s is a 400 naming the field, and nothing is written", async (_label, change, path, message) => {
      const response = await create<ErrorBody>({ ...twoVariants(), ...change });
      expect(response.status).toBe(400);
      expect(response.body.error.issues?.map((issue) => issue.path)).toContain(path);
      expect(response.body.error.message).toMatch(message);
      expect(await counts()).toEqual({ experiments: 0, variants: 0, phases: 0, exposures: 0 });
    });

    it("a version or playbook that does not exist is a 400 naming the field, and nothing is written", async () => {
      const version = await create<ErrorBody>(
        twoVariants({
          status: "running",
          variants: [
            { key: "A", playbookVersion: 1 },
            { key: "B", playbookVersion: 9 },
          ],
        }),
      );
      expect(version.status).toBe(400);
      expect(version.body.error.message).toMatch(
        /^variants\.1\.playbookVersion: version 9 of "support" does not exist; the playbook is at version 1/,
      );
      expect(version.body.error.details).toMatchObject({ field: "variants.1.playbookVersion" });

      const other = await create<ErrorBody>(twoVariants({ variants: [{ key: "A" }, { key: "B", playbook: "nope" }] }));
      expect(other.status).toBe(400);
      expect(other.body.error.details).toMatchObject({ field: "variants.1.playbook" });

      const playbook = await create<ErrorBody>(twoVariants({ playbook: "missing" }));
      expect(playbook.status).toBe(400);
      expect(playbook.body.error.message).toMatch(/^playbook: no playbook is named "missing"/);
      expect(await counts()).toEqual({ experiments: 0, variants: 0, phases: 0, exposures: 0 });
    });

    it("a draft changes freely, a started one keeps its variants, and every change is in the audit log", async () => {
      await curator.experiments.create(twoVariants());
      const redrafted = await curator.experiments.update({
        key: "tone",
        name: "Tone, three ways",
        seed: "tone-seed",
        coverage: 0.5,
        variants: [{ key: "A" }, { key: "B", noPlaybook: true }, { key: "C", playbookVersion: 1 }],
        minimumDetectableEffect: 0.05,
      });
      expect(redrafted).toMatchObject({
        name: "Tone, three ways",
        seed: "tone-seed",
        coverage: 0.5,
        variations: ["A", "B", "C"],
        variants: [
          { target: { kind: "latest" } },
          { target: { kind: "noPlaybook" }, noPlaybook: true },
          { target: { kind: "version", playbookVersion: 1 } },
        ],
        minimumDetectableEffect: 0.05,
        phase: null,
      });
      expect(redrafted.weights.reduce((sum, w) => sum + w, 0)).toBeCloseTo(1, 12);
      const started = await curator.experiments.update({ key: "tone", status: "running" });
      expect(started).toMatchObject({
        status: "running",
        phase: { number: 1, seed: "tone-seed", coverage: 0.5 },
        growthbook: { seed: "tone-seed", phase: "1" },
      });
      await expectAppError(
        curator.experiments.update({ key: "tone", seed: "other" }),
        "BAD_REQUEST",
        /^seed: the seed cannot change once the experiment has started/,
      );
      await expectAppError(curator.experiments.update({ key: "tone", status: "draft" }), "BAD_REQUEST", /cannot go back to draft/);
      await curator.experiments.update({ key: "tone", hypothesis: "Less is more." });
      await curator.experiments.decide({ key: "tone", action: "stop" });

      const entries = await database.db.auditEntry.findMany({
        where: { targetType: "experiment", targetLabel: "tone" },
        orderBy: { createdAt: "asc" },
        select: { action: true, actorName: true, playbookId: true, summary: true },
      });
      // Entries of one millisecond have no order between them: compared as a set of actions.
      expect(entries.map((entry) => entry.action).sort()).toEqual(
        ["experiment.create", "experiment.start", "experiment.stop", "experiment.update", "experiment.update"].sort(),
      );
      expect(entries.every((entry) => entry.playbookId === playbookId)).toBe(true);
      expect(entries.map((entry) => entry.summary)).toContainEqual(
        expect.objectContaining({
          before: expect.objectContaining({ name: "Tone" }),
          after: expect.objectContaining({ name: "Tone, three ways" }),
        }),
      );
    });

    it("an unknown experiment is a 404 naming it, and a missing unitId a 400", async () => {
      for (const response of [
        await getDefinition<ErrorBody>("ghost"),
        await assign<ErrorBody>("ghost", { unitId: "u1" }),
        await results<ErrorBody>("ghost"),
        await patch<ErrorBody>("ghost", { name: "x" }),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.error.message).toMatch(/No experiment has the key "ghost"/);
      }
      await create(twoVariants({ status: "running" }));
      const missing = await assign<ErrorBody>("tone", {});
      expect(missing.status).toBe(400);
      expect(missing.body.error.issues?.[0]?.path).toBe("unitId");
      const empty = await assign<ErrorBody>("tone", { unitId: "  " });
      expect(empty.status).toBe(400);
      expect(empty.body.error.message).toMatch(/unitId is empty/);
      expect(await counts()).toMatchObject({ exposures: 0 });
    });
  });

  describe("assignment", () => {
    it("is sticky: a unit gets the same variant on every call, GrowthBook's, with its exposure recorded once", async () => {
      await create(
        twoVariants({
          status: "running",
          variants: [
            { key: "A", weight: 0.2 },
            { key: "B", weight: 0.3 },
            { key: "C", weight: 0.5 },
          ],
        }),
      );
      const units = Array.from({ length: 150 }, (_, i) => `unit-${i}`);
      const first = new Map<string, AssignmentResult>();
      for (const unitId of units) {
        const { status, body } = await assign("tone", { unitId });
        expect(status).toBe(200);
        first.set(unitId, body);
        const sdk = assignVariant({ key: "tone", seed: "tone", unitId, weights: [0.2, 0.3, 0.5], coverage: 1 });
        expect(body).toMatchObject({
          experiment: "tone",
          unitId,
          inExperiment: true,
          reason: null,
          phase: 1,
          firstExposure: true,
          playbook: "support",
          playbookVersion: 1,
        });
        expect(body.variant).toBe(["A", "B", "C"][sdk.variantIndex as number]);
        expect(body.hashValue).toBe(sdk.hashValue);
      }
      for (const unitId of units.slice(0, 40)) {
        const { body } = await assign("tone", { unitId });
        expect(body.variant).toBe(first.get(unitId)?.variant);
        expect(body.firstExposure).toBe(false);
      }
      expect(await counts()).toMatchObject({ exposures: 150 });
      const split = new Set([...first.values()].map((a) => a.variant));
      expect(split).toEqual(new Set(["A", "B", "C"]));
    });

    it("units outside the coverage and every unit of a draft or stopped experiment get no variant and a reason", async () => {
      await create(twoVariants({ coverage: 0.3 }));
      const draft = await assign("tone", { unitId: "u-1" });
      expect(draft.body).toMatchObject({ inExperiment: false, variant: null, reason: "draft", phase: null, playbook: null });

      await patch("tone", { status: "running" });
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => assign("tone", { unitId: `u-${i}` })));
      const outside = answers.filter(({ body }) => body.reason === "outside_coverage");
      const inside = answers.filter(({ body }) => body.inExperiment);
      expect(outside.length).toBeGreaterThan(20);
      expect(inside.length).toBeGreaterThan(5);
      for (const { body } of outside) {
        expect(body).toMatchObject({ inExperiment: false, variant: null, phase: 1 });
        expect(body.hashValue).toBeGreaterThanOrEqual(0.3 * 0.5);
      }
      expect(await counts()).toMatchObject({ exposures: inside.length });

      const stopped = await patch("tone", { status: "stopped" });
      expect(stopped.body).toMatchObject({ status: "stopped", phase: { number: 1 } });
      expect(stopped.body.phase?.endedAt).not.toBeNull();
      const after = await assign("tone", { unitId: inside[0]?.body.unitId });
      expect(after.body).toMatchObject({ inExperiment: false, variant: null, reason: "stopped" });
    });

    it("re-weighting a running experiment needs confirmNewPhase, and the new phase has its own seed and analysis", async () => {
      await create(twoVariants({ status: "running" }));
      for (let i = 0; i < 20; i += 1) await assign("tone", { unitId: `u-${i}` });

      const refused = await patch<ErrorBody>("tone", {
        variants: [
          { key: "A", weight: 0.2 },
          { key: "B", weight: 0.8 },
        ],
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(
        /^confirmNewPhase: Changing the weights or coverage of a running experiment starts phase 2 with a new seed/,
      );
      expect(refused.body.error.details).toMatchObject({ field: "confirmNewPhase", nextPhase: 2 });

      const retarget = await patch<ErrorBody>("tone", { variants: [{ key: "A" }, { key: "B", noPlaybook: true }] });
      expect(retarget.status).toBe(400);
      expect(retarget.body.error.details).toMatchObject({ field: "variants" });

      const phased = await patch("tone", {
        variants: [
          { key: "A", weight: 0.2 },
          { key: "B", weight: 0.8 },
        ],
        confirmNewPhase: true,
      });
      expect(phased.status).toBe(200);
      expect(phased.body).toMatchObject({
        seed: "tone-phase2",
        weights: [0.2, 0.8],
        phase: { number: 2, seed: "tone-phase2", weights: [0.2, 0.8] },
      });
      expect(phased.body.phases.map((p) => [p.number, p.endedAt === null])).toEqual([
        [1, false],
        [2, true],
      ]);
      const unit = await assign("tone", { unitId: "u-1" });
      const sdk = assignVariant({ key: "tone", seed: "tone-phase2", unitId: "u-1", weights: [0.2, 0.8], coverage: 1 });
      expect(unit.body).toMatchObject({ phase: 2, firstExposure: true, variant: ["A", "B"][sdk.variantIndex as number] });

      const current = await results("tone");
      expect(current.body.phase?.number).toBe(2);
      expect(current.body.variants.reduce((sum, v) => sum + v.units, 0)).toBe(1);
      const earlier = await results("tone", "?phase=1");
      expect(earlier.body.variants.reduce((sum, v) => sum + v.units, 0)).toBe(20);
      expect(earlier.body.phase?.weights).toEqual([0.5, 0.5]);
      const none = await results<ErrorBody>("tone", "?phase=3");
      expect(none.status).toBe(404);
      expect(none.body.error.message).toMatch(/no phase 3; it has phases 1 to 2/);
    });
  });

  describe("traces", () => {
    it("a variant the experiment lacks is a 400 naming it; a unitId alone is assigned; an explicit variant is kept; a switch is a crossover", async () => {
      await create(twoVariants({ status: "running" }));
      const wrong = await postTraces<ErrorBody>({
        traces: [
          { playbook: "support", task: "t", experiment: "tone", variant: "A" },
          { playbook: "support", task: "t", experiment: "tone", variant: "Z" },
        ],
      });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.message).toMatch(/^traces\.1\.variant: "Z" is not a variant of experiment "tone" \(its variants: A, B\)/);
      expect(await database.db.trace.count()).toBe(0);

      const unknownToAssign = await postTraces<ErrorBody>({ playbook: "support", task: "t", experiment: "ghost", unitId: "u" });
      expect(unknownToAssign.status).toBe(404);
      expect(unknownToAssign.body.error.message).toMatch(/no experiment has the key "ghost"/);

      // An experiment the studio does not know stays a label, as before experiments existed.
      expect((await postTraces({ playbook: "support", task: "t", experiment: "ghost", variant: "X" })).status).toBe(201);

      const sdk = assignVariant({ key: "tone", seed: "tone", unitId: "agent-7", weights: [0.5, 0.5], coverage: 1 });
      const assigned = ["A", "B"][sdk.variantIndex as number] as string;
      const other = assigned === "A" ? "B" : "A";
      await postTraces({ playbook: "support", task: "t1", experiment: "tone", unitId: "agent-7", taskId: "task-1", outcome: "success" });
      await postTraces({ playbook: "support", task: "t2", experiment: "tone", unitId: "agent-8", variant: other, outcome: "failure" });
      const stored = await database.db.trace.findMany({
        where: { experiment: "tone" },
        orderBy: { task: "asc" },
        select: { variant: true, unitId: true, taskId: true, experimentPhase: true },
      });
      expect(stored).toEqual([
        { variant: assigned, unitId: "agent-7", taskId: "task-1", experimentPhase: 1 },
        { variant: other, unitId: "agent-8", taskId: null, experimentPhase: 1 },
      ]);
      expect((await assign("tone", { unitId: "agent-8" })).body).toMatchObject({ variant: other, firstExposure: false });

      // agent-7 later reports a run in the other variant: a crossover, left out and counted.
      await postTraces({ playbook: "support", task: "t3", experiment: "tone", unitId: "agent-7", variant: other, outcome: "success" });
      const { body } = await results("tone");
      expect(body.crossovers).toBe(1);
      const byKey = Object.fromEntries(body.variants.map((v) => [v.key, v]));
      expect(byKey[assigned]).toMatchObject({ crossovers: 1, units: 0, traces: 0 });
      expect(byKey[other]).toMatchObject({ crossovers: 0, units: 1, traces: 1, failure: 1 });
    });
  });

  describe("results", () => {
    it("1,000 agents assigned through the API and posting outcomes: B wins, with SciPy's p-value and interval", async () => {
      const spec = inputs.agents;
      const expected = reference.agents;
      await create({
        key: spec.experiment,
        playbook: "support",
        status: "running",
        variants: spec.variants.map((key, i) => ({ key, weight: spec.weights[i] })),
        plannedUnitsPerVariant: spec.plannedUnitsPerVariant,
      });
      const planned = new Map(
        Object.entries(expected.traces).flatMap(([variant, rows]) => rows.map((row) => [row.unitId, { variant, ...row }] as const)),
      );
      expect(planned.size).toBe(spec.units);

      await inBatches([...planned.keys()], 25, async (unitId) => {
        const agent = planned.get(unitId);
        const { status, body } = await assign(spec.experiment, { unitId });
        expect(status).toBe(200);
        // Python's GrowthBook formula and the API agree on every agent.
        expect(body.variant, unitId).toBe(agent?.variant);
        const posted = await postTraces({
          playbook: "support",
          task: `task of ${unitId}`,
          externalId: `run-${unitId}`,
          experiment: spec.experiment,
          variant: body.variant,
          unitId,
          outcome: agent?.success ? "success" : "failure",
          durationMs: agent?.durationMs,
          usage: { costUsd: agent?.costUsd },
        });
        expect(posted.status).toBe(201);
      });

      const { status, body } = await results(spec.experiment);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        experiment: spec.experiment,
        status: "running",
        control: "A",
        analysis: "per-trace",
        design: "fixed-horizon",
        early: true,
        crossovers: 0,
      });
      body.variants.forEach((variant, i) => {
        const want = expected.variants[i] as (typeof expected.variants)[number];
        expect(variant).toMatchObject({
          key: want.key,
          units: want.units,
          traces: want.traces,
          success: want.success,
          failure: want.failure,
          unknown: 0,
        });
        expectClose(variant.successRate, want.successRate, `${want.key} rate`);
        expectPairClose(variant.ci95, want.ci95, `${want.key} Wilson`);
      });
      const [comparison] = body.comparisons;
      expect(comparison).toMatchObject({ variant: "B", control: "A", metric: "successRate", significant: true });
      const want = expected.comparison;
      expectClose(comparison?.absoluteDiff, want.absoluteDiff, "difference");
      expectPairClose(comparison?.ci95, want.ci95, "Newcombe");
      expectClose(comparison?.pValue, want.pValue, "z-test p");
      expectClose(comparison?.adjustedPValue, want.adjustedPValue, "Holm");
      expectClose(comparison?.relativeUplift, want.relativeUplift, "uplift");
      expectClose(comparison?.chanceToBeatControl, want.chanceToBeatControl, "chance to beat control");

      const guardrails = Object.fromEntries((comparison?.guardrails ?? []).map((g) => [g.metric, g]));
      expectClose(guardrails.costUsd?.difference, want.guardrails.costUsd.difference, "cost difference");
      expectPairClose(guardrails.costUsd?.ci95, want.guardrails.costUsd.ci, "cost Welch");
      expectClose(guardrails.costUsd?.pValue, want.guardrails.costUsd.pValue, "cost p");
      expect(guardrails.costUsd?.worse).toBe(false);
      expectPairClose(guardrails.durationMs?.ci95, want.guardrails.durationMs.ci, "duration Welch");
      expectClose(guardrails.durationMs?.pValue, want.guardrails.durationMs.pValue, "duration p");
      expect(guardrails.durationMs?.worse).toBe(true);
      expect(guardrails.tokens).toMatchObject({ variant: { n: 0, mean: null }, pValue: null, worse: false });

      expect(body.srm).toMatchObject({ flagged: false, observed: [expected.variants[0]?.units, expected.variants[1]?.units] });
      expectClose(body.srm.chiSquare, expected.srm.chiSquare, "SRM chi-square");
      expectClose(body.srm.pValue, expected.srm.pValue, "SRM p");
      expect(body.progress).toEqual(expected.progress);
      expect(body.power).toMatchObject({
        plannedUnitsPerVariant: spec.plannedUnitsPerVariant,
        unitsPerVariant: expected.progress.unitsPerVariant,
      });
      expect(Math.abs((body.power?.mdeAtCurrentSample ?? NaN) - want.mdeAtCurrentSample)).toBeLessThan(1e-8);
      expect(body.paired).toEqual({ tasks: 0, bothSuccess: 0, onlyControl: 0, onlyVariant: 0, bothFail: 0, pValue: null });
      expect(body.timeline.at(-1)?.variants.map((v) => v.decided)).toEqual([expected.variants[0]?.traces, expected.variants[1]?.traces]);
      expect(body.methods.difference).toMatch(/Newcombe/);

      // The list names the leader and its significance.
      const [item] = await curator.experiments.list({});
      expect(item).toMatchObject({
        key: spec.experiment,
        leader: { variant: "B", significant: true },
        srmFlagged: false,
        early: true,
        units: 1000,
        traces: 1000,
      });
      expect(item?.progress).toBeCloseTo(expected.progress.fraction, 12);
    }, 120_000);

    it("a skewed split is flagged by the sample-ratio check", async () => {
      const spec = inputs.skewed;
      await create({
        key: spec.experiment,
        playbook: "support",
        status: "running",
        variants: [
          { key: "A", weight: 0.5 },
          { key: "B", weight: 0.5 },
        ],
      });
      const traces = (["A", "B"] as const).flatMap((variant) =>
        Array.from({ length: spec.units[variant] }, (_, i) => ({
          playbook: "support",
          task: "t",
          experiment: spec.experiment,
          variant,
          unitId: `${variant}-${i}`,
          outcome: i % 2 === 0 ? "success" : "failure",
        })),
      );
      expect((await postTraces({ traces })).status).toBe(201);
      const { body } = await results(spec.experiment);
      expect(body.srm).toMatchObject({ flagged: true, observed: reference.skewed.observed, degreesOfFreedom: 1 });
      expectClose(body.srm.chiSquare, reference.skewed.srm.chiSquare, "chi-square");
      expectClose(body.srm.pValue, reference.skewed.srm.pValue, "p");
      const [item] = await curator.experiments.list({ status: "running" });
      expect(item?.srmFlagged).toBe(true);
    });

    it("a paired run over one task set gets its exact McNemar test", async () => {
      const cells = inputs.paired.cells;
      const outcomes: [boolean, boolean][] = [
        ...Array.from({ length: cells.bothSuccess }, () => [true, true] as [boolean, boolean]),
        ...Array.from({ length: cells.onlyControl }, () => [true, false] as [boolean, boolean]),
        ...Array.from({ length: cells.onlyVariant }, () => [false, true] as [boolean, boolean]),
        ...Array.from({ length: cells.bothFail }, () => [false, false] as [boolean, boolean]),
      ];
      await create({ key: inputs.paired.experiment, playbook: "support", status: "running", variants: [{ key: "A" }, { key: "B" }] });
      const traces = outcomes.flatMap(([control, variant], i) => [
        {
          playbook: "support",
          task: `task ${i}`,
          taskId: `task-${i}`,
          unitId: `task-${i}-A`,
          experiment: inputs.paired.experiment,
          variant: "A",
          outcome: control ? "success" : "failure",
        },
        {
          playbook: "support",
          task: `task ${i}`,
          taskId: `task-${i}`,
          unitId: `task-${i}-B`,
          experiment: inputs.paired.experiment,
          variant: "B",
          outcome: variant ? "success" : "failure",
        },
        // A second run of the same task under B counts only once: the first decided trace per task and variant.
        ...(i < 5
          ? [
              {
                playbook: "support",
                task: `task ${i}`,
                taskId: `task-${i}`,
                unitId: `task-${i}-B2`,
                experiment: inputs.paired.experiment,
                variant: "B",
                outcome: variant ? "failure" : "success",
              },
            ]
          : []),
      ]);
      expect((await postTraces({ traces })).status).toBe(201);
      const { body } = await results(inputs.paired.experiment);
      const want = reference.paired;
      expect(body.paired).toMatchObject({
        tasks: want.tasks,
        bothSuccess: want.bothSuccess,
        onlyControl: want.onlyControl,
        onlyVariant: want.onlyVariant,
        bothFail: want.bothFail,
      });
      expectClose(body.paired?.pValue, want.pValue, "McNemar p");
      expect(body.comparisons[0]?.paired).toEqual(body.paired);
    });

    it("units with several traces are analysed per unit, with the delta method's interval and p-value", async () => {
      const spec = inputs.perUnit;
      await create({ key: spec.experiment, playbook: "support", status: "running", variants: [{ key: "A" }, { key: "B" }] });
      const traces = (["A", "B"] as const).flatMap((variant) =>
        reference.perUnit.units[variant].flatMap(([x, y], unit) =>
          Array.from({ length: y as number }, (_, k) => ({
            playbook: "support",
            task: "t",
            experiment: spec.experiment,
            variant,
            unitId: `${variant}-unit-${unit}`,
            outcome: k < (x as number) ? "success" : "failure",
          })),
        ),
      );
      expect((await postTraces({ traces })).status).toBe(201);
      const { body } = await results(spec.experiment);
      expect(body.analysis).toBe("per-unit");
      expectClose(body.variants[0]?.successRate, reference.perUnit.rates.A, "A rate");
      const want = reference.perUnit.comparison;
      const comparison = body.comparisons[0];
      expectClose(comparison?.absoluteDiff, want.absoluteDiff, "difference");
      expectPairClose(comparison?.ci95, want.ci95, "delta-method interval");
      expectClose(comparison?.pValue, want.pValue, "p");
      expectClose(comparison?.chanceToBeatControl, want.chanceToBeatControl, "chance to beat control");
    });
  });

  describe("rollups", () => {
    interface TraceRow {
      id: string;
      unitId: string | null;
      taskId: string | null;
      variant: string;
      outcome: "success" | "failure" | "unknown";
      costUsd: number | null;
      inputTokens: number | null;
      outputTokens: number | null;
      durationMs: number | null;
      timestamp: Date;
    }
    type Sums = Record<string, number>;

    const add = (sums: Sums, key: string, value: number) => (sums[key] = (sums[key] ?? 0) + value);
    function tally(rows: TraceRow[]): Sums {
      const sums: Sums = {
        traces: 0,
        success: 0,
        failure: 0,
        unknown: 0,
        costN: 0,
        costSum: 0,
        costSq: 0,
        tokensN: 0,
        tokensSum: 0,
        tokensSq: 0,
        durationN: 0,
        durationSum: 0,
        durationSq: 0,
      };
      for (const row of rows) {
        add(sums, "traces", 1);
        add(sums, row.outcome, 1);
        const tokens = row.inputTokens === null && row.outputTokens === null ? null : (row.inputTokens ?? 0) + (row.outputTokens ?? 0);
        for (const [name, value] of [
          ["cost", row.costUsd],
          ["tokens", tokens],
          ["duration", row.durationMs],
        ] as const) {
          if (value === null) continue;
          add(sums, `${name}N`, 1);
          add(sums, `${name}Sum`, value);
          add(sums, `${name}Sq`, value * value);
        }
      }
      return sums;
    }
    function expectSums(actual: Record<string, unknown>, expected: Sums, what: string) {
      for (const [key, value] of Object.entries(expected)) {
        expect(
          Math.abs(Number(actual[key]) - value) <= 1e-9 * Math.max(1, Math.abs(value)),
          `${what} ${key}: ${String(actual[key])} ≠ ${value}`,
        ).toBe(true);
      }
    }

    /** Every rollup row against the same figures computed here from the traces as they are now. */
    async function expectRollupsMatch(experimentId: string) {
      const traces = await database.db.$queryRaw<TraceRow[]>`
        SELECT id::text AS id, "unitId", "taskId", variant, outcome::text AS outcome, "costUsd", "inputTokens", "outputTokens", "durationMs", "timestamp"
        FROM "Trace" WHERE experiment = 'rolls' AND "experimentPhase" = 1 AND variant IS NOT NULL`;
      const exposures = await database.db.$queryRaw<
        (Record<string, unknown> & {
          unitId: string;
          variant: string;
          crossover: boolean;
          fromTrace: boolean;
          firstSeenAt: Date;
          playbookVersion: number | null;
        })[]
      >`
        SELECT * FROM "ExperimentExposure" WHERE "experimentId" = ${experimentId}::uuid AND phase = 1`;
      const byUnit = new Map<string, TraceRow[]>();
      for (const trace of traces) {
        const unit = trace.unitId ?? `trace:${trace.id}`;
        byUnit.set(unit, [...(byUnit.get(unit) ?? []), trace]);
      }
      const exposureBy = new Map(exposures.map((row) => [row.unitId, row]));
      const expectedTally = new Map<string, Sums>();
      for (const [unit, rows] of byUnit) {
        const exposure = exposureBy.get(unit);
        expect(exposure, `exposure of ${unit}`).toBeDefined();
        expectSums(exposure as Record<string, unknown>, tally(rows), `unit ${unit}`);
        if (rows.some((row) => row.variant !== exposure?.variant)) expect(exposure?.crossover, `${unit} is a crossover`).toBe(true);
      }
      for (const exposure of exposures) {
        if (!byUnit.has(exposure.unitId)) {
          expect(exposure.fromTrace, `${exposure.unitId} stays only as an assigned unit`).toBe(false);
          expect(exposure.traces).toBe(0);
        }
        const key = `${exposure.variant}|${exposure.playbookVersion ?? -1}|${exposure.firstSeenAt.toISOString().slice(0, 10)}`;
        const sums = expectedTally.get(key) ?? {};
        if (exposure.crossover) add(sums, "crossovers", 1);
        else {
          const own = tally(byUnit.get(exposure.unitId) ?? []);
          const decided = (own.success ?? 0) + (own.failure ?? 0);
          add(sums, "units", 1);
          add(sums, "crossovers", 0);
          add(sums, "withoutUnit", exposure.fromTrace ? 1 : 0);
          add(sums, "decidedUnits", decided > 0 ? 1 : 0);
          add(sums, "multiTraceUnits", decided >= 2 ? 1 : 0);
          for (const [name, value] of Object.entries(own)) add(sums, name, value);
          add(sums, "successSq", (own.success ?? 0) ** 2);
          add(sums, "decidedSq", decided ** 2);
          add(sums, "successDecided", (own.success ?? 0) * decided);
        }
        expectedTally.set(key, sums);
      }
      const tallies = await database.db.$queryRaw<(Record<string, unknown> & { key: string })[]>`
        SELECT variant || '|' || "playbookVersion" || '|' || to_char(day, 'YYYY-MM-DD') AS key, * FROM "ExperimentTally"
        WHERE "experimentId" = ${experimentId}::uuid AND phase = 1 AND (units <> 0 OR crossovers <> 0)`;
      expect(new Set(tallies.map((row) => row.key))).toEqual(new Set([...expectedTally.keys()]));
      for (const row of tallies) expectSums(row, expectedTally.get(row.key) ?? {}, `tally ${row.key}`);

      // Each task's first decided trace per variant, and the paired cells against the control A.
      const firsts = new Map<string, TraceRow>();
      for (const trace of [...traces].sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || a.id.localeCompare(b.id))) {
        if (trace.taskId === null || trace.outcome === "unknown") continue;
        const key = `${trace.taskId}|${trace.variant}`;
        if (!firsts.has(key)) firsts.set(key, trace);
      }
      const tasks = await database.db.$queryRaw<{ key: string; traceId: string; success: boolean }[]>`
        SELECT "taskId" || '|' || variant AS key, "traceId"::text AS "traceId", success FROM "ExperimentTask" WHERE "experimentId" = ${experimentId}::uuid AND phase = 1`;
      expect(new Map(tasks.map((row) => [row.key, row.traceId]))).toEqual(new Map([...firsts].map(([key, trace]) => [key, trace.id])));
      const cells = new Map<string, Sums>();
      for (const [key, trace] of firsts) {
        const [task, variant] = key.split("|") as [string, string];
        const control = firsts.get(`${task}|A`);
        if (variant === "A" || !control) continue;
        const sums = cells.get(variant) ?? { tasks: 0, bothSuccess: 0, onlyControl: 0, onlyVariant: 0, bothFail: 0 };
        const c = control.outcome === "success";
        const v = trace.outcome === "success";
        add(sums, "tasks", 1);
        add(sums, c && v ? "bothSuccess" : c ? "onlyControl" : v ? "onlyVariant" : "bothFail", 1);
        cells.set(variant, sums);
      }
      const paired = await database.db.$queryRaw<(Record<string, unknown> & { variant: string })[]>`
        SELECT * FROM "ExperimentPaired" WHERE "experimentId" = ${experimentId}::uuid AND phase = 1 AND tasks <> 0`;
      expect(new Set(paired.map((row) => row.variant))).toEqual(new Set(cells.keys()));
      for (const row of paired) expectSums(row, cells.get(row.variant) ?? {}, `paired ${row.variant}`);
      return traces.length;
    }

    it("follow every write: batches, deleted and changed traces, a task's next first trace, crossovers, the playbook's deletion", async () => {
      const created = await create({
        key: "rolls",
        playbook: "support",
        status: "running",
        variants: [{ key: "A" }, { key: "B" }, { key: "C" }],
      });
      const experimentId = (await database.db.experiment.findUniqueOrThrow({ where: { key: created.body.key }, select: { id: true } })).id;
      let seed = 7;
      const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
      const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
      const traces = Array.from({ length: 240 }, (_, i) => {
        const unit = random() < 0.15 ? null : Math.floor(random() * 60);
        // Mostly the unit's own variant; now and then another one (a crossover).
        const variant = unit !== null && random() < 0.9 ? (["A", "B", "C"][unit % 3] as string) : pick(["A", "B", "C"]);
        return {
          playbook: "support",
          task: `run ${i}`,
          externalId: `r-${i}`,
          experiment: "rolls",
          variant,
          ...(unit === null ? {} : { unitId: `u-${unit}` }),
          ...(random() < 0.7 ? { taskId: `task-${Math.floor(random() * 40)}` } : {}),
          outcome: pick(["success", "failure", "unknown"]),
          ...(random() < 0.8 ? { usage: { costUsd: Math.round(random() * 1000) / 1e5, inputTokens: Math.floor(random() * 500) } } : {}),
          ...(random() < 0.8 ? { durationMs: Math.floor(random() * 3000) } : {}),
          playbookVersion: random() < 0.5 ? 1 : null,
          timestamp: new Date(Date.UTC(2026, 9, 1 + Math.floor(random() * 10), Math.floor(random() * 24))).toISOString(),
        };
      });
      await assign("rolls", { unitId: "assigned-only" });
      expect((await postTraces({ traces: traces.slice(0, 120) })).status).toBe(201);
      expect((await postTraces({ traces: traces.slice(120) })).status).toBe(201);
      expect(await expectRollupsMatch(experimentId)).toBe(240);
      const before = await results("rolls");
      expect(before.body.crossovers).toBeGreaterThan(0);
      expect(before.body.analysis).toBe("per-unit");

      const ids = (
        await database.db.trace.findMany({ where: { experiment: "rolls" }, select: { id: true }, orderBy: { externalId: "asc" } })
      ).map((row) => row.id);
      await database.db.trace.deleteMany({ where: { id: { in: ids.filter((_, i) => i % 3 === 0) } } });
      await database.db.trace.updateMany({ where: { id: { in: ids.filter((_, i) => i % 5 === 1) } }, data: { outcome: "success" } });
      await database.db.trace.updateMany({
        where: { id: { in: ids.filter((_, i) => i % 7 === 2) } },
        data: { variant: "C", durationMs: 5, taskId: "task-1" },
      });
      expect(await expectRollupsMatch(experimentId)).toBe(160);

      await database.db.playbook.delete({ where: { id: playbookId } });
      for (const table of ["ExperimentExposure", "ExperimentTally", "ExperimentTask", "ExperimentPaired"]) {
        const [row] = await database.db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${table}"`);
        expect(row?.n, table).toBe(0);
      }
    });
  });

  describe("decisions", () => {
    it("shipping a pinned older version rolls the playbook back to it as a new version; stop ends assignment", async () => {
      await curator.delta.edit({
        playbookId,
        reason: "Curated",
        operations: [{ type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." }],
      });
      const created = await create(
        twoVariants({
          status: "running",
          variants: [
            { key: "old", playbookVersion: 1 },
            { key: "new", latest: true },
          ],
        }),
      );
      expect(created.body.variants[0]).toMatchObject({ target: { kind: "version", playbookVersion: 1 }, playbookVersion: 1 });

      const offered = await curator.experiments.decide({
        key: "tone",
        action: "ship",
        variant: "old",
        note: "The old wording did better.",
      });
      expect(offered.rollback).toBeNull();
      expect(offered.rollbackOffer).toEqual({ playbookVersion: 1, currentVersion: 2 });
      expect(offered.experiment).toMatchObject({
        status: "stopped",
        decision: { action: "ship", variant: "old", by: "alice", rolledBackToVersion: null },
      });

      const shipped = await curator.experiments.decide({ key: "tone", action: "ship", variant: "old", note: "Roll back.", rollback: true });
      expect(shipped.rollback).toMatchObject({ version: 3, rolledBackTo: 1 });
      expect(shipped.experiment.decision).toMatchObject({ variant: "old", rolledBackToVersion: 1 });
      const versions = await curator.history.versions({ playbookId });
      expect(versions.currentVersion).toBe(3);
      expect(versions.items[0]?.reason).toMatch(/Rolled back to version 1: experiment "tone" shipped variant "old"/);
      const bullet = await database.db.bullet.findFirst({ where: { playbookId, externalId: "str-00002" }, select: { content: true } });
      expect(bullet?.content).toBe("Retry failed API calls immediately without any backoff.");

      await expectAppError(
        curator.experiments.decide({ key: "tone", action: "ship", variant: "new", rollback: true }),
        "BAD_REQUEST",
        /does not pin an older version/,
      );
      await expectAppError(
        curator.experiments.decide({ key: "tone", action: "ship", variant: "zzz" }),
        "BAD_REQUEST",
        /"zzz" is not a variant/,
      );
      expect((await assign("tone", { unitId: "u" })).body.reason).toBe("stopped");
      await expectAppError(
        curator.experiments.update({ key: "tone", status: "running", confirmNewPhase: true }),
        "BAD_REQUEST",
        /decided experiment stays stopped/,
      );
    });

    it("stop ends assignment, and viewers may read but not change experiments", async () => {
      await curator.experiments.create(twoVariants({ status: "running" }));
      const viewer = callerAs(database.db, "viewer", "vic");
      await expectAppError(viewer.experiments.create({ ...twoVariants(), key: "other" }), "FORBIDDEN", /./);
      expect((await viewer.experiments.get({ key: "tone" })).status).toBe("running");
      const stopped = await curator.experiments.decide({ key: "tone", action: "stop", note: "Enough." });
      expect(stopped.experiment).toMatchObject({ status: "stopped", decision: { action: "stop", variant: null, note: "Enough." } });
      expect((await assign("tone", { unitId: "u" })).body).toMatchObject({ inExperiment: false, reason: "stopped" });
      await expectAppError(curator.experiments.decide({ key: "tone", action: "stop" }), "BAD_REQUEST", /already stopped/);
      expect(await curator.experiments.sampleSize({ baseline: 0.4, mde: 0.05 })).toEqual({ unitsPerVariant: 1534 });
    });
  });

  describe("the variant's context", () => {
    it("serves the assigned variant's playbook with X-Ace-Variant and its own ETag, and records the exposure", async () => {
      await curator.delta.edit({
        playbookId,
        reason: "Curated",
        operations: [{ type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." }],
      });
      await create(
        twoVariants({
          status: "running",
          variants: [
            { key: "pinned", playbookVersion: 1 },
            { key: "empty", noPlaybook: true },
          ],
        }),
      );
      const sdk = (unitId: string) =>
        ["pinned", "empty"][assignVariant({ key: "tone", seed: "tone", unitId, weights: [0.5, 0.5], coverage: 1 }).variantIndex as number];
      const units = Array.from({ length: 20 }, (_, i) => `agent-${i}`);
      const pinnedUnit = units.find((u) => sdk(u) === "pinned") as string;
      const emptyUnit = units.find((u) => sdk(u) === "empty") as string;

      const pinned = await context("support", `experiment=tone&unitId=${pinnedUnit}`);
      expect(pinned.status).toBe(200);
      expect(pinned.headers.get("x-ace-variant")).toBe("pinned");
      expect(pinned.headers.get("x-playbook-version")).toBe("1");
      expect(pinned.body?.context).toContain("Retry failed API calls immediately without any backoff.");
      const plain = await context("support", "");
      expect(plain.body?.version).toBe(2);
      expect(plain.body?.context).toContain("exponential backoff");
      expect(pinned.headers.get("etag")).not.toBe(plain.headers.get("etag"));

      const again = await context("support", `experiment=tone&unitId=${pinnedUnit}`, { "if-none-match": pinned.headers.get("etag") ?? "" });
      expect(again.status).toBe(304);
      expect(again.headers.get("x-ace-variant")).toBe("pinned");

      const empty = await context("support", `experiment=tone&unitId=${emptyUnit}&format=json`);
      expect(empty.headers.get("x-ace-variant")).toBe("empty");
      expect(empty.body).toMatchObject({ version: 0, tokens: 0, context: "" });
      expect(empty.headers.get("etag")).not.toBe(pinned.headers.get("etag"));
      expect(await counts()).toMatchObject({ exposures: 2 });
      expect((await assign("tone", { unitId: pinnedUnit })).body).toMatchObject({
        variant: "pinned",
        firstExposure: false,
        playbookVersion: 1,
      });

      const wrongPlaybook = await context("other", `experiment=tone&unitId=${pinnedUnit}`);
      expect(wrongPlaybook.status).toBe(400);
      const noUnit = await context("support", "experiment=tone");
      expect(noUnit.status).toBe(400);
    });
  });

  describe("the definition the assign route keeps", () => {
    const variantOf = (unitId: string, seed: string, weights: number[]) =>
      ["A", "B"][assignVariant({ key: "tone", seed, unitId, weights, coverage: 1 }).variantIndex as number];

    it("new weights in a new phase apply to the next assignment made through this instance", async () => {
      await create(twoVariants({ status: "running" }));
      expect((await assign("tone", { unitId: "warm" })).body).toMatchObject({ phase: 1, inExperiment: true });
      const weights = [0.05, 0.95];
      expect(
        (
          await patch("tone", {
            variants: [
              { key: "A", weight: 0.05 },
              { key: "B", weight: 0.95 },
            ],
            confirmNewPhase: true,
          })
        ).status,
      ).toBe(200);
      for (let i = 0; i < 20; i += 1) {
        const unitId = `after-${i}`;
        expect((await assign("tone", { unitId })).body).toMatchObject({ phase: 2, variant: variantOf(unitId, "tone-phase2", weights) });
      }
    });

    it("a stopped experiment stops assigning at once here", async () => {
      await create(twoVariants({ status: "running" }));
      expect((await assign("tone", { unitId: "u-1" })).body.inExperiment).toBe(true);
      await curator.experiments.decide({ key: "tone", action: "stop", note: "Enough." });
      expect((await assign("tone", { unitId: "u-2" })).body).toMatchObject({ inExperiment: false, variant: null, reason: "stopped" });
    });

    it("a change made through another instance applies within DEFINITION_TTL_MS", async () => {
      await create(twoVariants({ status: "running" }));
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        expect((await assign("tone", { unitId: "u-1" })).body.inExperiment).toBe(true);
        // Another instance stops it: this process is not told.
        await database.db.experiment.update({ where: { key: "tone" }, data: { status: "stopped", stoppedAt: new Date() } });
        expect((await assign("tone", { unitId: "u-2" })).body.inExperiment).toBe(true);
        vi.advanceTimersByTime(DEFINITION_TTL_MS);
        expect((await assign("tone", { unitId: "u-3" })).body).toMatchObject({ inExperiment: false, reason: "stopped" });
      } finally {
        vi.useRealTimers();
      }
    });

    it("an experiment deleted through another instance answers 404, not a failed write", async () => {
      await create(twoVariants({ status: "running" }));
      expect((await assign("tone", { unitId: "u-1" })).body.inExperiment).toBe(true);
      await database.db.experiment.delete({ where: { key: "tone" } });
      const gone = await assign<ErrorBody>("tone", { unitId: "u-2" });
      expect(gone.status).toBe(404);
      expect(gone.body.error.message).toMatch(/No experiment has the key "tone"/);
    });
  });
});
