// Trace ingest and browsing through POST /api/v1/traces and the tRPC procedures, against embedded
// PGlite and PostgreSQL. The route reaches its database through getDb(), which serveDb() points at
// the test database. The after-ingest
// trigger (the runs domain's) is replaced by a spy: these tests are about what ingest hands it.
import { setImmediate as nextTurn } from "node:timers/promises";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { testEngines } from "@/server/testing/db";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { GATHER_TURNS, groupCommitStats, ingestTracesGrouped } from "./group-commit";
import { countTraces } from "./repository";
import { MAX_TRACE_BODY_BYTES, parseTraceBody } from "./schemas";

const onTracesStored = vi.hoisted(() => vi.fn(async (_db: unknown, _tx: unknown, _batches: unknown) => undefined));
vi.mock("@/server/runs/triggers", () => ({ onTracesStored }));

const { POST } = await import("@/app/api/v1/traces/route");

interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[]; details?: Record<string, unknown> | null };
}
interface IngestBody {
  traces: { id: string; externalId: string | null; playbook: string; status: "created" | "duplicate" }[];
  created: number;
  duplicates: number;
}

function request(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/api/v1/traces", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    // Node's fetch needs this for a stream body.
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

async function post<T = IngestBody>(body: unknown): Promise<{ status: number; body: T }> {
  const response = await POST(request(JSON.stringify(body)));
  return { status: response.status, body: (await response.json()) as T };
}

const trace = (extra: Record<string, unknown> = {}) => ({ playbook: "support", task: "Refund order 1182", ...extra });

describe.each(testEngines())("traces on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "tester"] });
  beforeEach(() => {
    onTracesStored.mockClear();
  });

  const storedCount = () => suite.database.db.trace.count();

  it("a batch is stored with every field and listed newest first, last sent first", async () => {
    const full = trace({
      externalId: "run-1",
      reasoning: "Checked the policy.",
      output: "Refunded.",
      citedBulletIds: ["str-00001"],
      outcome: "success",
      feedback: { groundTruth: "refund", errors: [], testResults: "3/3 passed", notes: "fast", score: 0.9 },
      durationMs: 1200,
      usage: { inputTokens: 1500, outputTokens: 300 },
      variant: "A",
      playbookVersion: 1,
      metadata: { user: "u-7", tags: ["billing"] },
    });
    const { status, body } = await post({ traces: [full, trace({ task: "second" }), trace({ task: "third", outcome: null })] });
    expect(status).toBe(201);
    expect(body).toMatchObject({ created: 3, duplicates: 0 });
    expect(body.traces.map((t) => [t.externalId, t.playbook, t.status])).toEqual([
      ["run-1", "support", "created"],
      [null, "support", "created"],
      [null, "support", "created"],
    ]);

    const page = await suite.caller.traces.list({ playbookId: suite.playbookId });
    expect(page.items.map((t) => t.taskPreview)).toEqual(["third", "second", "Refund order 1182"]);
    expect(page.nextCursor).toBeNull();

    const stored = await suite.caller.traces.get({ traceId: body.traces[0]!.id });
    expect(stored).toMatchObject({
      playbookId: suite.playbookId,
      playbookName: "support",
      externalId: "run-1",
      task: "Refund order 1182",
      reasoning: "Checked the policy.",
      output: "Refunded.",
      citedBulletIds: ["str-00001"],
      outcome: "success",
      feedback: { groundTruth: "refund", testResults: "3/3 passed", notes: "fast", score: 0.9 },
      durationMs: 1200,
      inputTokens: 1500,
      outputTokens: 300,
      variant: "A",
      playbookVersion: 1,
      metadata: { user: "u-7", tags: ["billing"] },
      reflectedAt: null,
    });
    const bare = await suite.caller.traces.get({ traceId: body.traces[2]!.id });
    expect(bare).toMatchObject({
      outcome: "unknown",
      reasoning: "",
      output: "",
      feedback: {},
      metadata: {},
      durationMs: null,
      variant: null,
    });
  });

  it("a single trace object is accepted as well as a batch", async () => {
    const { status, body } = await post(trace({ externalId: "solo" }));
    expect(status).toBe(201);
    expect(body.traces).toEqual([{ id: expect.any(String), externalId: "solo", playbook: "support", status: "created" }]);
  });

  it("the same externalId is stored once, within a batch and across posts, and a retry answers 200", async () => {
    const first = await post({
      traces: [trace({ externalId: "a" }), trace({ externalId: "a", task: "changed" }), trace({ externalId: "b" })],
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ created: 2, duplicates: 1 });
    const [a, aAgain, b] = first.body.traces;
    expect(aAgain).toEqual({ ...a, status: "duplicate" });

    const second = await post({ traces: [trace({ externalId: "a" }), trace({ externalId: "c" })] });
    expect(second.status).toBe(201);
    expect(second.body.traces.map((t) => t.status)).toEqual(["duplicate", "created"]);
    expect(second.body.traces[0]!.id).toBe(a!.id);

    const retry = await post({ traces: [trace({ externalId: "b" }), trace({ externalId: "c" })] });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ created: 0, duplicates: 2 });
    expect(retry.body.traces[0]!.id).toBe(b!.id);

    expect(await storedCount()).toBe(3);
    expect((await suite.caller.traces.get({ traceId: a!.id })).task).toBe("Refund order 1182");
  });

  it("two requests racing with the same externalId store it once and both answer its id", async () => {
    const [one, two] = await Promise.all([
      post({ traces: [trace({ externalId: "race" }), trace({ externalId: "race-1" })] }),
      post({ traces: [trace({ externalId: "race-2" }), trace({ externalId: "race" })] }),
    ]);
    expect(one.body.traces[0]!.id).toBe(two.body.traces[1]!.id);
    expect([one.body.traces[0]!.status, two.body.traces[1]!.status].sort()).toEqual(["created", "duplicate"]);
    expect(await storedCount()).toBe(3);
  });

  it("posts that arrive together are written as one group, and each gets the answer it would have had alone", async () => {
    const posts = Array.from({ length: 24 }, (_, i) =>
      post({ traces: [trace({ externalId: `group-${i}`, outcome: "success" }), trace({ externalId: `group-${i}-b` })] }),
    );
    // A repeat of the third post's first trace, in the same crowd: stored once, as if posted after it.
    posts.push(post(trace({ externalId: "group-2", outcome: "failure" })));
    const answers = await Promise.all(posts);
    // Posts reach the queue in the order their bodies are read: either of the repeated pair may be first.
    const pair = [answers[2]!.body.traces[0]!, answers[24]!.body.traces[0]!];
    expect(pair[0]!.id).toBe(pair[1]!.id);
    expect(pair.map((stored) => stored.status).sort()).toEqual(["created", "duplicate"]);
    answers.slice(0, 24).forEach((answer, i) => {
      expect(answer.status).toBe(201);
      expect(answer.body.traces.map((stored) => stored.externalId)).toEqual([`group-${i}`, `group-${i}-b`]);
      expect(answer.body.created).toBe(i === 2 && pair[0]!.status === "duplicate" ? 1 : 2);
    });
    expect(answers[24]!.status).toBe(pair[1]!.status === "created" ? 201 : 200);
    expect(await storedCount()).toBe(48);
  });

  it("posts arriving over the next turns of the event loop, as requests still being read do, are written as one group", async () => {
    const before = groupCommitStats(suite.database.db, "api");
    const results = await Promise.all(
      Array.from({ length: GATHER_TURNS }, async (_, turn) => {
        for (let passed = 0; passed < turn; passed += 1) await nextTurn();
        return ingestTracesGrouped(suite.database.db, parseTraceBody(trace({ externalId: `turn-${turn}` })), { source: "api" });
      }),
    );
    const after = groupCommitStats(suite.database.db, "api");
    expect(after.posts - before.posts).toBe(GATHER_TURNS);
    expect(after.groups - before.groups).toBe(1);
    expect(results.map((result) => result.created)).toEqual(Array.from({ length: GATHER_TURNS }, () => 1));
  });

  it("posts of one group get their own answers; a group refused for one post is written again post by post", async () => {
    const items = (body: unknown) => parseTraceBody(body);
    const before = groupCommitStats(suite.database.db, "api");
    // Called in one tick: one group, refused for the third post's unknown playbook.
    const results = await Promise.allSettled([
      ingestTracesGrouped(suite.database.db, items(trace({ externalId: "first" })), { source: "api" }),
      ingestTracesGrouped(suite.database.db, items(trace({ externalId: "kept-1" })), { source: "api" }),
      ingestTracesGrouped(
        suite.database.db,
        items({ traces: [trace({ externalId: "lost-1" }), trace({ playbook: "nope", externalId: "lost-2" })] }),
        {
          source: "api",
        },
      ),
      ingestTracesGrouped(suite.database.db, items({ traces: [trace({ externalId: "kept-2" }), trace({ externalId: "kept-1" })] }), {
        source: "api",
      }),
      ingestTracesGrouped(suite.database.db, items(trace({ externalId: "kept-3" })), { source: "api" }),
    ]);
    const after = groupCommitStats(suite.database.db, "api");
    expect(after.posts - before.posts).toBe(5);
    expect(after.groups - before.groups).toBe(1);
    // The group was refused for the unknown playbook: each of its posts was written again alone.
    expect(after.refusedGroups - before.refusedGroups).toBe(1);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/No playbook named "nope" \(trace 1\)/);
    const fourth = (results[3] as PromiseFulfilledResult<{ traces: { status: string }[]; created: number }>).value;
    expect(fourth.traces.map((stored) => stored.status)).toEqual(["created", "duplicate"]);
    const stored = await suite.database.db.trace.findMany({ select: { externalId: true }, orderBy: { externalId: "asc" } });
    expect(stored.map((row) => row.externalId)).toEqual(["first", "kept-1", "kept-2", "kept-3"]);
  });

  it("the same externalId in two playbooks is two traces", async () => {
    await suite.caller.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "other" } });
    const { body } = await post({ traces: [trace({ externalId: "x" }), trace({ externalId: "x", playbook: "other" })] });
    expect(body).toMatchObject({ created: 2, duplicates: 0 });
  });

  it("cited bullet ids are taken from reasoning and output when the agent does not list them", async () => {
    const { body } = await post({
      traces: [
        trace({
          reasoning: 'Per [str-00001] and [step-1], then <!-- bullet_ids: ["mis-00004", "str-00003"] -->',
          output: "Done as [str-00001] and [str-00002] say.",
        }),
        trace({ reasoning: "[str-00001]", citedBulletIds: [] }),
        trace({ reasoning: "[str-00001]", citedBulletIds: ["mis-00004", "mis-00004"] }),
      ],
    });
    const cited = await Promise.all(body.traces.map(async (t) => (await suite.caller.traces.get({ traceId: t.id })).citedBulletIds));
    expect(cited).toEqual([["str-00001", "mis-00004", "str-00003", "str-00002"], [], ["mis-00004"]]);
  });

  it("a field that is wrong is named in a 400, and nothing of the batch is stored", async () => {
    const batch = { traces: [trace(), trace(), trace(), trace({ outcome: "great" }), trace({ usage: { inputTokens: -1 } })] };
    const { status, body } = await post<ErrorBody>(batch);
    expect(status).toBe(400);
    expect(body.error.code).toBe("INVALID_INPUT");
    expect(body.error.issues?.map((issue) => issue.path)).toEqual(["traces.3.outcome", "traces.4.usage.inputTokens"]);
    expect(body.error.message).toMatch(/traces\.3\.outcome/);

    const single = await post<ErrorBody>({ playbook: "support", outcome: "success", citedBulletIDs: ["str-00001"] });
    expect(single.status).toBe(400);
    expect(single.body.error.issues?.map((issue) => issue.path).sort()).toEqual(["", "task"]);
    expect(single.body.error.message).toMatch(/citedBulletIDs/);

    const tooMany = await post<ErrorBody>({ traces: Array.from({ length: 1_001 }, () => trace()) });
    expect(tooMany.body.error.issues?.[0]).toMatchObject({ path: "traces", message: expect.stringMatching(/at most 1,000/) });
    const empty = await post<ErrorBody>({ traces: [] });
    expect(empty.status).toBe(400);
    const longTask = await post<ErrorBody>(trace({ task: "x".repeat(100_001) }));
    expect(longTask.body.error.issues?.[0]?.path).toBe("task");
    const bigMetadata = await post<ErrorBody>(trace({ metadata: { blob: "x".repeat(70_000) } }));
    expect(bigMetadata.body.error.issues?.[0]?.path).toBe("metadata");

    expect(await storedCount()).toBe(0);
  });

  it("a trace keeps when it ran, its model and cost; without a timestamp it ran when received", async () => {
    const { body } = await post({
      traces: [
        trace({
          externalId: "past",
          timestamp: "2026-01-15T23:30:00.250-02:00",
          model: "gpt-4.1-mini",
          usage: { inputTokens: 1500, outputTokens: 300, costUsd: 0.0011 },
          experiment: "tone",
          variant: "B",
        }),
        trace({ externalId: "now", usage: { costUsd: 0 } }),
      ],
    });
    const past = await suite.caller.traces.get({ traceId: body.traces[0]!.id });
    expect(past).toMatchObject({
      model: "gpt-4.1-mini",
      inputTokens: 1500,
      outputTokens: 300,
      costUsd: 0.0011,
      experiment: "tone",
      variant: "B",
    });
    // The offset is applied: 23:30 at UTC−2 is 01:30 UTC the next day.
    expect(past.timestamp.toISOString()).toBe("2026-01-16T01:30:00.250Z");
    expect(past.createdAt.getTime()).toBeGreaterThan(Date.now() - 60_000);

    const now = await suite.caller.traces.get({ traceId: body.traces[1]!.id });
    expect(now).toMatchObject({ model: null, costUsd: 0, experiment: null });
    expect(now.timestamp.toISOString()).toBe(now.createdAt.toISOString());

    // The explorer's date range is on when the agent ran.
    const january = await suite.caller.traces.list({
      playbookId: suite.playbookId,
      from: new Date("2026-01-16T00:00:00Z"),
      to: new Date("2026-01-17T00:00:00Z"),
    });
    expect(january.items.map((t) => [t.externalId, t.timestamp.toISOString()])).toEqual([["past", "2026-01-16T01:30:00.250Z"]]);
    expect((await suite.caller.traces.list({ playbookId: suite.playbookId, experiment: "tone" })).items.map((t) => t.externalId)).toEqual([
      "past",
    ]);
  });

  it("a timestamp without a zone, in the future or before 2000, and a negative cost are 400s naming the field", async () => {
    const inAnHour = new Date(Date.now() + 60 * 60_000).toISOString();
    const inAMinute = new Date(Date.now() + 60_000).toISOString();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ timestamp: "2026-01-15T10:00:00" }, "timestamp", /zone offset/],
      [{ timestamp: "15/01/2026" }, "timestamp", /ISO 8601/],
      [{ timestamp: inAnHour }, "timestamp", /future/],
      [{ timestamp: "1999-12-31T23:59:59.999Z" }, "timestamp", /before 2000-01-01/],
      [{ usage: { costUsd: -0.01 } }, "usage.costUsd", /negative/],
      [{ usage: { costUsd: "0.1" } }, "usage.costUsd", /number of US dollars/],
      [{ model: "" }, "model", /.+/],
    ];
    for (const [fields, path, message] of cases) {
      const { status, body } = await post<ErrorBody>(trace(fields));
      expect(status, JSON.stringify(fields)).toBe(400);
      expect(body.error.issues, JSON.stringify(fields)).toEqual([{ path, message: expect.stringMatching(message) }]);
    }
    const inBatch = await post<ErrorBody>({ traces: [trace(), trace({ timestamp: inAnHour })] });
    expect(inBatch.body.error.issues?.map((issue) => issue.path)).toEqual(["traces.1.timestamp"]);
    expect(await storedCount()).toBe(0);

    // Within the clock skew allowed, and exactly 2000-01-01, are accepted.
    const accepted = await post({ traces: [trace({ timestamp: inAMinute }), trace({ timestamp: "2000-01-01T00:00:00Z" })] });
    expect(accepted.body.created).toBe(2);
  });

  it("a body that is not JSON is a 400 that says so", async () => {
    for (const body of ['{"playbook": "support", "task": ', "", "\u00ff"]) {
      const response = await POST(request(body));
      expect(response.status).toBe(400);
      const json = (await response.json()) as ErrorBody;
      expect(json.error.message).toMatch(/JSON|no body/);
    }
  });

  it("an unknown playbook is a 404 naming it, and nothing of the batch is stored", async () => {
    const { status, body } = await post<ErrorBody>({ traces: [trace(), trace({ playbook: "suport" }), trace({ playbook: "Support" })] });
    expect(status).toBe(404);
    expect(body.error.code).toBe("NOT_FOUND");
    expect(body.error.message).toMatch(/"suport" \(trace 1\), "Support" \(trace 2\)/);
    expect(body.error.details).toEqual({ playbooks: ["suport", "Support"] });
    expect(await storedCount()).toBe(0);
    await expectAppError(suite.caller.traces.ingest({ traces: [trace({ playbook: "nope" })] }), "NOT_FOUND", /"nope"/);
  });

  it("a body over the size limit is refused with 413, by its declared length or while it is read", async () => {
    expect(MAX_TRACE_BODY_BYTES).toBe(10 * 1024 * 1024);
    const declared = await POST(request(JSON.stringify(trace()), { "content-length": String(MAX_TRACE_BODY_BYTES + 1) }));
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as ErrorBody).error).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: expect.stringMatching(/10 MB/),
    });

    // A chunked body has no length: it is counted as it arrives and reading stops past the limit.
    let sent = 0;
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 2 * MAX_TRACE_BODY_BYTES) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const streamed = await POST(request(stream));
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThanOrEqual(MAX_TRACE_BODY_BYTES + 2 * chunk.byteLength);
    expect(await storedCount()).toBe(0);

    // Just under the limit is fine: a full batch of large traces.
    const big = { traces: Array.from({ length: 90 }, (_, i) => trace({ externalId: `big-${i}`, output: "y".repeat(100_000) })) };
    const text = JSON.stringify(big);
    expect(text.length).toBeLessThan(MAX_TRACE_BODY_BYTES);
    const accepted = await POST(request(text));
    expect(accepted.status).toBe(201);
  });

  it("NUL characters, which PostgreSQL cannot store, arrive as U+FFFD", async () => {
    const { body } = await post(trace({ externalId: "nul", output: "a\u0000b \\u0000 literal", metadata: { "k\u0000": "v\u0000" } }));
    const stored = await suite.caller.traces.get({ traceId: body.traces[0]!.id });
    expect(stored.output).toBe("a\ufffdb \\u0000 literal");
    expect(stored.metadata).toEqual({ "k\ufffd": "v\ufffd" });
  });

  it("the list filters by outcome, variant, reflection, time and text, and pages through every trace once", async () => {
    await post({
      traces: [
        trace({ externalId: "t1", outcome: "success", variant: "A", task: "Book a flight to Lisbon" }),
        trace({ externalId: "t2", outcome: "failure", variant: "B", task: "Cancel the hotel" }),
        trace({ externalId: "t3", outcome: "failure", variant: "A", task: "Refund 100% of order_7" }),
        trace({ externalId: "t4", outcome: "unknown", task: "Flight status" }),
        trace({ externalId: "t5", outcome: "success", variant: "B", task: "Change seat" }),
      ],
    });
    const ids = async (input: Omit<Parameters<typeof suite.caller.traces.list>[0], "playbookId">) => {
      const page = await suite.caller.traces.list({ playbookId: suite.playbookId, ...input });
      expect(page.total, JSON.stringify(input)).toBe(page.items.length); // every filter's matches fit one page here
      return page.items.map((t) => t.externalId);
    };

    expect(await ids({ outcome: "failure" })).toEqual(["t3", "t2"]);
    expect(await ids({ variant: "A" })).toEqual(["t3", "t1"]);
    expect(await ids({ search: "flight" })).toEqual(["t4", "t1"]);
    expect(await ids({ search: "t5" })).toEqual(["t5"]);
    expect(await ids({ search: "100%_" })).toEqual([]);
    expect(await ids({ search: "100% of order_" })).toEqual(["t3"]);

    const t2 = await suite.database.db.trace.findFirstOrThrow({ where: { externalId: "t2" }, select: { id: true } });
    await suite.database.db.trace.update({ where: { id: t2.id }, data: { reflectedAt: new Date() } });
    expect(await ids({ reflected: true })).toEqual(["t2"]);
    expect(await ids({ reflected: false })).toEqual(["t5", "t4", "t3", "t1"]);

    const now = Date.now();
    expect(await ids({ from: new Date(now - 60_000), to: new Date(now + 60_000) })).toHaveLength(5);
    expect(await ids({ from: new Date(now + 60_000) })).toEqual([]);
    expect(await ids({ to: new Date(now - 60_000) })).toEqual([]);

    const seen: (string | null)[] = [];
    const totals: (number | null)[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof suite.caller.traces.list>> = await suite.caller.traces.list({
        playbookId: suite.playbookId,
        limit: 2,
        cursor,
      });
      seen.push(...page.items.map((t) => t.externalId));
      totals.push(page.total);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["t5", "t4", "t3", "t2", "t1"]);
    expect(totals).toEqual([5, null, null]); // counted once, with the first page
    // Counting stops past its cap: 5 traces against a cap of 2 read as "more than 2".
    expect(await countTraces(suite.database.db, { playbookId: suite.playbookId }, 2)).toBe(3);
    expect(await countTraces(suite.database.db, { playbookId: suite.playbookId, outcome: "failure" }, 2)).toBe(2);

    expect((await suite.caller.traces.list({})).items).toHaveLength(5);
    await expectAppError(suite.caller.traces.list({ cursor: "not-a-cursor" }), "BAD_REQUEST", /cursor/);
  });

  it("a trace's detail resolves its cited bullets and lists the runs that read it", async () => {
    const { body } = await post(trace({ citedBulletIds: ["mis-00004", "str-00002", "zzz-99999"] }));
    const traceId = body.traces[0]!.id;
    const other = (await post(trace({ task: "other" }))).body.traces[0]!.id;
    const reflector = await suite.database.db.run.create({
      data: {
        playbookId: suite.playbookId,
        role: "reflector",
        status: "succeeded",
        provider: "offline",
        model: "scripted",
        traceIds: [traceId],
      },
    });
    const curator = await suite.database.db.run.create({
      data: {
        playbookId: suite.playbookId,
        role: "curator",
        status: "queued",
        provider: "openai",
        model: "gpt-x",
        traceIds: [other, traceId],
      },
    });
    await suite.database.db.run.create({
      data: { playbookId: suite.playbookId, role: "reflector", provider: "offline", model: "scripted", traceIds: [other] },
    });

    const detail = await suite.caller.traces.get({ traceId });
    expect(detail.citedBullets).toEqual([
      {
        externalId: "mis-00004",
        exists: true,
        content: "Don't forget timezone conversions when comparing dates.",
        sectionName: "common_mistakes_to_avoid",
        helpful: 2,
        harmful: 0,
        neutral: 0,
        countersKnown: true,
        status: "active",
      },
      expect.objectContaining({ externalId: "str-00002", exists: true, sectionName: "strategies_and_insights", helpful: 1, harmful: 4 }),
      expect.objectContaining({ externalId: "zzz-99999", exists: false, content: null, sectionName: null }),
    ]);
    expect(detail.runs.map((run) => run.id).sort()).toEqual([reflector.id, curator.id].sort());
    expect(detail.runs.find((run) => run.id === curator.id)).toMatchObject({
      role: "curator",
      status: "queued",
      provider: "openai",
      model: "gpt-x",
      deltaId: null,
      createdAt: expect.any(Date),
    });

    await expectAppError(suite.caller.traces.get({ traceId: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND", /trace/);
  });

  it("the ingest trigger gets the new traces of each playbook, with its settings, in the ingest's transaction, and never the duplicates", async () => {
    const { playbookId: otherId } = await suite.caller.playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: "other" },
    });
    await suite.caller.playbook.updateSettings({ playbookId: otherId, settings: { reflectorMode: "manual" } });
    const settingsOf = async (id: string) => (await suite.database.db.playbook.findUniqueOrThrow({ where: { id } })).settings;
    await post(trace({ externalId: "old" }));
    onTracesStored.mockClear();
    const { body } = await post({ traces: [trace({ externalId: "old" }), trace({ externalId: "new" }), trace({ playbook: "other" })] });
    expect(onTracesStored).toHaveBeenCalledTimes(1);
    const [db, tx, batches] = onTracesStored.mock.calls[0]!;
    expect(db).toBe(suite.database.db);
    expect(tx).not.toBe(suite.database.db);
    expect(batches).toEqual([
      { playbookId: suite.playbookId, traceIds: [body.traces[1]!.id], settings: await settingsOf(suite.playbookId) },
      { playbookId: otherId, traceIds: [body.traces[2]!.id], settings: await settingsOf(otherId) },
    ]);
    expect((await settingsOf(otherId)) as { reflectorMode?: string }).toMatchObject({ reflectorMode: "manual" });

    onTracesStored.mockClear();
    await post(trace({ externalId: "new" }));
    expect(onTracesStored).not.toHaveBeenCalled();
  });

  it("a failing ingest trigger stores none of the post's traces: the agent gets an error and sends them again", async () => {
    onTracesStored.mockRejectedValueOnce(new Error("queue is down"));
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const { status } = await post<ErrorBody>(trace({ externalId: "kept" }));
      expect(status).toBe(500);
      expect(await storedCount()).toBe(0);
    } finally {
      logged.mockRestore();
    }
    const again = await post(trace({ externalId: "kept" }));
    expect(again).toMatchObject({ status: 201, body: { created: 1 } });
    expect(await storedCount()).toBe(1);
  });

  it("the tRPC ingest stores a batch like the HTTP API", async () => {
    const result = await suite.caller.traces.ingest({ traces: [trace({ externalId: "s1" }), trace({ externalId: "s1" })] });
    expect(result).toMatchObject({ created: 1, duplicates: 1 });
    expect(await storedCount()).toBe(1);
  });

  it("the tRPC ingest refuses an unknown playbook or a wrong field, and stores nothing of the batch", async () => {
    await expectAppError(
      suite.caller.traces.ingest({ traces: [trace({ externalId: "a" }), trace({ externalId: "b", playbook: "Support" })] }),
      "NOT_FOUND",
      /No playbook named "Support" \(trace 1\)\. Names are case-sensitive.*Nothing was stored/,
    );
    await expectAppError(suite.caller.traces.ingest({ traces: [trace({ externalId: "c", durationMs: -1 })] }), "BAD_REQUEST", /durationMs/);
    await expectAppError(suite.caller.traces.ingest({ traces: [] }), "BAD_REQUEST", /traces/);
    expect(await storedCount()).toBe(0);
    expect(onTracesStored).not.toHaveBeenCalled();
  });

  it("the list refuses a cursor it did not hand out and a page size out of range; a trace id must be a UUID", async () => {
    await suite.caller.traces.ingest({ traces: [trace({ externalId: "x" })] });
    await expectAppError(
      suite.caller.traces.list({ playbookId: suite.playbookId, cursor: "page-2" }),
      "BAD_REQUEST",
      /The page cursor is not one this list returned/,
    );
    await expectAppError(suite.caller.traces.list({ playbookId: suite.playbookId, limit: 0 }), "BAD_REQUEST", /limit/);
    await expectAppError(suite.caller.traces.get({ traceId: "x" }), "BAD_REQUEST", /traceId/);
    expect((await suite.caller.traces.list({ playbookId: suite.playbookId })).items).toHaveLength(1);
  });

  it("a batch of 1,000 traces is stored in one request", async () => {
    const traces = Array.from({ length: 1_000 }, (_, i) =>
      trace({
        externalId: `bulk-${i}`,
        reasoning: `Used [str-0000${(i % 3) + 1}] on step ${i}. `.repeat(10),
        output: "ok ".repeat(200),
        outcome: i % 2 ? "success" : "failure",
        feedback: { notes: `trace ${i}` },
        metadata: { i },
      }),
    );
    const started = performance.now();
    const { status, body } = await post({ traces });
    const elapsed = performance.now() - started;
    expect(status).toBe(201);
    expect(body.created).toBe(1_000);
    console.info(`[traces] 1,000 traces ingested on ${engine} in ${elapsed.toFixed(0)} ms`);
    const again = await post({ traces });
    expect(again).toMatchObject({ status: 200, body: { created: 0, duplicates: 1_000 } });
    expect(await storedCount()).toBe(1_000);
  });
});
