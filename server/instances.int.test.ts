// Several app instances on one PostgreSQL database (issue 15, item 6), as separate processes: two
// instances (server/testing/app-server.ts: the start-up of `next start` and the same route
// handlers, without a build) start together on a fresh database, take traces, edits, proposals and
// approvals at once, and must end where one instance alone ends with the same requests: the same
// bullets and counters (exactly those the traces imply), the same versions, each trace reflected by
// one run, each job run once. Both serve the same context and ETag, and one's edit shows on the
// other within the second each keeps a playbook's head (server/context/heads.ts). PGlite is one
// process only, so this runs on PostgreSQL alone.
//
// Why not two `next start`: that needs a production build (minutes on these machines, and a stale
// build would test old code); the route handlers and the start-up are the app's own either way.
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { HEAD_TTL_MS } from "@/server/context/heads";
import {
  createInstanceDatabase,
  onPostgres,
  startAppInstance,
  type AppInstance,
  type InstanceDatabaseMade,
} from "@/server/testing/app-instance";

const NAME = "fleet playbook";
const BASE = [
  "## strategies_and_insights",
  "[str-00001] helpful=3 harmful=0 :: Always verify data types before processing numeric fields.",
  "[str-00002] helpful=1 harmful=4 :: Retry failed API calls immediately without any backoff.",
  "[str-00003] helpful=0 harmful=0 :: Paginate through every page of results before answering.",
  "[str-00004] helpful=5 harmful=1 :: Read the tool's error message before retrying.",
  "## common_mistakes_to_avoid",
  "[mis-00005] helpful=2 harmful=0 :: Don't forget timezone conversions when comparing dates.",
  "[mis-00006] helpful=0 harmful=2 :: Never assume a list is sorted.",
  "",
].join("\n");
const IDS = ["str-00001", "str-00002", "str-00003", "str-00004", "mis-00005", "mis-00006"];
const TRACES = 200;
const BATCH = 10;
const EDITS = 10;
const PROPOSALS = 6;

const postgresUrl = inject("testPostgresUrl");

/** The traces the agents send: each cites two bullets; a success tags them helpful, a failure harmful. */
function traceBatch(batch: number) {
  return Array.from({ length: BATCH }, (_, offset) => {
    const index = batch * BATCH + offset;
    return {
      playbook: NAME,
      externalId: `agent-${index}`,
      task: `Request ${index}`,
      output: "Done.",
      outcome: index % 4 === 0 ? "failure" : "success",
      citedBulletIds: [IDS[index % IDS.length]!, IDS[(index * 5 + 1) % IDS.length]!],
    };
  });
}

/** Each bullet's counters once every trace is reflected, from the file and the traces alone. */
function expectedCounters(): Map<string, { helpful: number; harmful: number }> {
  const counters = new Map<string, { helpful: number; harmful: number }>();
  for (const line of BASE.split("\n")) {
    const match = /^\[(\S+)\] helpful=(\d+) harmful=(\d+)/.exec(line);
    if (match) counters.set(match[1]!, { helpful: Number(match[2]), harmful: Number(match[3]) });
  }
  for (let batch = 0; batch < TRACES / BATCH; batch += 1) {
    for (const trace of traceBatch(batch)) {
      for (const id of new Set(trace.citedBulletIds)) counters.get(id)![trace.outcome === "success" ? "helpful" : "harmful"] += 1;
    }
  }
  return counters;
}

/** Answers that say "try again": a concurrent change (CONFLICT), or a playbook changing too fast to read (BUSY, 503). */
const TRY_AGAIN = new Set(["CONFLICT", "SERVICE_UNAVAILABLE"]);

/** A person whose action met a concurrent change tries again, as the studio tells them to (after a moment when busy). */
async function withRetry<T>(action: () => Promise<T>, counter: { conflicts: number }): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await action();
    } catch (error) {
      if (!(error instanceof TRPCClientError) || !TRY_AGAIN.has(error.data?.code) || attempt >= 20) throw error;
      counter.conflicts += 1;
      if (error.data?.code === "SERVICE_UNAVAILABLE") await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

async function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}

/** The same requests, spread round-robin over the instances and sent at once. */
async function workload(instances: AppInstance[]): Promise<{ conflicts: number }> {
  const clients = instances.map((instance) => instance.trpc);
  const at = <T>(list: T[], index: number) => list[index % list.length]!;
  const { playbookId } = await clients[0]!.playbook.import.mutate({ content: BASE, format: "ace", target: { kind: "new", name: NAME } });
  await clients[0]!.playbook.updateSettings.mutate({ playbookId, settings: { curatorMode: "off" } });
  const counter = { conflicts: 0 };

  const traces = Array.from({ length: TRACES / BATCH }, async (_, batch) => {
    const response = await postJson(`${at(instances, batch).url}/api/v1/traces`, { traces: traceBatch(batch) });
    expect(response.status, await response.clone().text()).toBe(201);
    // An agent that did not hear back sends the batch again, to the other instance: stored once.
    if (batch % 4 === 0)
      expect((await postJson(`${at(instances, batch + 1).url}/api/v1/traces`, { traces: traceBatch(batch) })).status).toBe(200);
  });
  const edits = Array.from({ length: EDITS }, (_, index) =>
    withRetry(
      () =>
        at(clients, index).delta.edit.mutate({
          playbookId,
          reason: `Edit ${index}`,
          operations: [
            { type: "add", section: "strategies_and_insights", content: `Lesson ${index}: confirm the order number before refunding.` },
          ],
        }),
      counter,
    ),
  );
  const approvals = Array.from({ length: PROPOSALS }, async (_, index) => {
    // The loop's file: the playbook it started from (version 2) with one lesson added to the last section.
    const file = `${BASE}[prop-0000${index}] helpful=0 harmful=0 :: Proposal ${index}: log the customer's consent.\n`;
    const response = await postJson(`${at(instances, index).url}/api/v1/playbooks/${encodeURIComponent(NAME)}/proposals`, {
      content: file,
      format: "ace",
      baseVersion: 2,
      rationale: `Loop ${index}`,
    });
    const proposal = (await response.json()) as { deltaId: string | null; operations: number };
    expect(response.status, JSON.stringify(proposal)).toBe(201);
    await withRetry(() => at(clients, index + 1).delta.approve.mutate({ deltaId: proposal.deltaId! }), counter);
  });
  await Promise.all([...traces, ...edits, ...approvals]);
  return counter;
}

/** Waits until every job is finished and every trace reflected (the daily retention job queued for tomorrow aside). */
async function settle(databaseUrl: string, instances: AppInstance[]): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const [waiting, unreflected] = await onPostgres(databaseUrl, async (client) => [
      Number(
        (
          await client.query(
            `SELECT count(*) AS n FROM "Job" WHERE status IN ('queued', 'running') AND NOT (kind = 'retention' AND "runAt" > now())`,
          )
        ).rows[0].n,
      ),
      Number((await client.query(`SELECT count(*) AS n FROM "Trace" WHERE "reflectedAt" IS NULL`)).rows[0].n),
    ]);
    if (waiting === 0 && unreflected === 0) return;
    if (Date.now() > deadline) {
      const logs = instances.map((instance, index) => `--- instance ${index + 1} ---\n${instance.log.join("").slice(-6_000)}`).join("\n");
      throw new Error(`Still ${waiting} jobs waiting and ${unreflected} traces unreflected after 3 minutes.\n${logs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What the run left in the database, without ids a run chooses (uuids, timestamps). */
async function outcome(databaseUrl: string) {
  return onPostgres(databaseUrl, async (client) => {
    const rows = async (sql: string) => (await client.query(sql)).rows as Record<string, unknown>[];
    // Bullets added at the same moment get their ids in commit order, which concurrency decides (one
    // id counter per playbook): the id numbers are compared as a set, each bullet by its content
    // (the file's own bullets by id too).
    const bullets = await rows(`
      SELECT b."externalId" AS id, s.name AS section, b.content, b.status::text AS status, b.helpful, b.harmful, b.neutral
      FROM "Bullet" b JOIN "Section" s ON s.id = b."sectionId" ORDER BY b.content`);
    return {
      bullets: bullets.map((bullet) => (IDS.includes(bullet.id as string) ? bullet : { ...bullet, id: "(added)" })),
      idNumbers: bullets.map((bullet) => Number(/-(\d+)$/.exec(bullet.id as string)?.[1])).sort((a, b) => a - b),
      versions: await rows(`SELECT version, "contextVersion" <= version AS "contextVersionValid" FROM "Playbook"`),
      versionRows: await rows(`SELECT count(*)::int AS n FROM "PlaybookVersion"`),
      figures: await rows(`
        SELECT count(*)::int AS n, count(*) FILTER (WHERE "countersChanged" AND NOT "contentChanged")::int AS "counterOnly"
        FROM "PlaybookFigures"`),
      lastFigures: await rows(`SELECT "activeBullets", helpful, harmful, neutral FROM "PlaybookFigures" ORDER BY version DESC LIMIT 1`),
      traces: await rows(`SELECT count(*)::int AS n FROM "Trace"`),
      runs: await rows(`SELECT role::text, status::text, count(*)::int AS n FROM "Run" GROUP BY 1, 2 ORDER BY 1, 2`),
      runsPerTrace: await rows(`
        SELECT n, count(*)::int AS traces FROM (
          SELECT t.id, count(r.id)::int AS n FROM "Trace" t LEFT JOIN "Run" r ON r.role = 'reflector' AND r."traceIds" @> ARRAY[t.id::text]
          GROUP BY t.id) per GROUP BY n`),
      jobs: await rows(`SELECT kind, status::text, count(*)::int AS n FROM "Job" GROUP BY 1, 2 ORDER BY 1, 2`),
      deltas: await rows(`SELECT origin::text, status::text, count(*)::int AS n FROM "Delta" GROUP BY 1, 2 ORDER BY 1, 2`),
      deltasPerRun: await rows(`
        SELECT n, count(*)::int AS runs FROM (
          SELECT r.id, count(d.id)::int AS n FROM "Run" r
          LEFT JOIN "Delta" d ON d.origin = 'reflector' AND d.evidence->'runIds' ? r.id::text
          WHERE r.role = 'reflector' GROUP BY r.id) per GROUP BY n`),
    };
  });
}

describe.runIf(postgresUrl)("several app instances on one PostgreSQL database", () => {
  let databases: InstanceDatabaseMade[] = [];
  let sharedUrl = "";
  let singleUrl = "";
  let pair: AppInstance[] = [];
  let alone: AppInstance[] = [];

  beforeAll(async () => {
    databases = await Promise.all([createInstanceDatabase("postgres", postgresUrl), createInstanceDatabase("postgres", postgresUrl)]);
    const [shared, single] = databases.map(({ database }) => database);
    if (shared?.kind !== "postgres" || single?.kind !== "postgres") throw new Error("Expected two PostgreSQL databases.");
    sharedUrl = shared.url;
    singleUrl = single.url;
    const env = { ACE_RUN_CONCURRENCY: "2" };
    // All three start at once: the pair migrates its fresh database concurrently (the migration lock).
    const started = await Promise.all([
      startAppInstance("postgres", { database: shared, env }),
      startAppInstance("postgres", { database: shared, env }),
      startAppInstance("postgres", { database: single, env }),
    ]);
    pair = started.slice(0, 2);
    alone = started.slice(2);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([...pair, ...alone].map((instance) => instance.stop()));
    await Promise.all(databases.map((database) => database.drop()));
  }, 60_000);

  /** On a failure, what the instances printed (their errors are in their own processes). */
  const printLogsOnFailure = () =>
    onTestFailed(() => {
      for (const [index, instance] of [...pair, ...alone].entries()) {
        const state =
          instance.child.exitCode === null && instance.child.signalCode === null
            ? "running"
            : `exited (${instance.child.exitCode ?? instance.child.signalCode})`;
        console.error(`--- instance ${index + 1}, ${state} ---\n${instance.log.join("").slice(-8_000)}`);
      }
    });

  it("two instances taking traces, edits and approvals at once end where one instance ends: exact counters, each job once", async () => {
    printLogsOnFailure();
    const [pairRun, aloneRun] = await Promise.all([workload(pair), workload(alone)]);
    await Promise.all([settle(sharedUrl, pair), settle(singleUrl, alone)]);
    const [shared, single] = await Promise.all([outcome(sharedUrl), outcome(singleUrl)]);

    // The single instance is exact: every trace's tags counted once.
    const expected = expectedCounters();
    for (const [id, counters] of expected) {
      expect(
        single.bullets.find((bullet) => bullet.id === id),
        id,
      ).toMatchObject(counters);
    }
    expect(single.traces).toEqual([{ n: TRACES }]);
    expect(single.runs).toEqual([{ role: "reflector", status: "succeeded", n: TRACES }]);
    expect(single.runsPerTrace).toEqual([{ n: 1, traces: TRACES }]);
    expect(single.deltasPerRun).toEqual([{ n: 1, runs: TRACES }]);
    // Each start asks for the next daily retention run: one job, whether one instance started or two.
    expect(single.jobs).toEqual([
      { kind: "reflect", status: "succeeded", n: TRACES },
      { kind: "retention", status: "queued", n: 1 },
    ]);
    // import, settings, a tag version per trace, the edits and the approvals.
    expect(single.versions).toEqual([{ version: 2 + TRACES + EDITS + PROPOSALS, contextVersionValid: true }]);
    expect(single.bullets).toHaveLength(IDS.length + EDITS + PROPOSALS);
    expect(single.idNumbers).toEqual(Array.from({ length: IDS.length + EDITS + PROPOSALS }, (_, index) => index + 1));

    // Two instances end in the same place.
    expect(shared).toEqual(single);
    console.info(`[instances] conflicts retried by the clients: pair ${pairRun.conflicts}, alone ${aloneRun.conflicts}`);
  }, 600_000);

  it("both instances serve the same context and ETag, and one's edit shows on the other within its head's second", async () => {
    printLogsOnFailure();
    const [one, two] = pair as [AppInstance, AppInstance];
    const context = (instance: AppInstance) => fetch(`${instance.url}/api/v1/playbooks/${encodeURIComponent(NAME)}/context?format=text`);
    const [a, b] = await Promise.all([context(one), context(two)]);
    expect(a.status).toBe(200);
    expect(a.headers.get("etag")).toBe(b.headers.get("etag"));
    expect(await a.text()).toBe(await b.text());
    const etag = a.headers.get("etag")!;
    expect(
      (await fetch(`${two.url}/api/v1/playbooks/${encodeURIComponent(NAME)}/context?format=text`, { headers: { "if-none-match": etag } }))
        .status,
    ).toBe(304);

    const { trpc: client } = one;
    const playbookId = (await client.playbook.list.query()).find((playbook) => playbook.name === NAME)!.id;
    await client.delta.edit.mutate({
      playbookId,
      reason: "Seen everywhere",
      operations: [{ type: "add", section: "strategies_and_insights", content: "Quote the refund policy's section number." }],
    });
    // Two may answer 304 from the head it kept for up to HEAD_TTL_MS; the deadline is far beyond it,
    // so only a head kept without bound fails.
    const polled = () =>
      fetch(`${two.url}/api/v1/playbooks/${encodeURIComponent(NAME)}/context?format=text`, { headers: { "if-none-match": etag } });
    await expect.poll(async () => (await polled()).status, { timeout: 20 * HEAD_TTL_MS, interval: 100 }).toBe(200);
    expect(await (await polled()).text()).toContain("Quote the refund policy's section number.");
  }, 120_000);
});
