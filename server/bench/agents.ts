// A hundred agents at once against the production server (issue 15, item 1): `next start` as the
// README runs it, on the engine's database, the offline reflector and curator on. Each simulated agent
// assigns itself once in a running experiment, then every second polls the compiled context with
// If-None-Match (its last ETag) and posts one trace citing two bullets: an open-loop load of about
// 200 requests/s that does not slow down when the server does. Reported per stream: p50/p95/max,
// errors and the 304 share, with the server's memory (RSS of its processes) before, at the peak and
// after; then, separately, the closed-loop maximum of cached (304) context polls.
import http from "node:http";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { systemWho } from "@/server/audit/record";
import { createApiKey } from "@/server/apikeys/service";
import { createExperimentInput } from "@/server/experiments/schemas";
import { createExperiment } from "@/server/experiments/service";
import { ACTOR, check, guarded, importAppWorld, recordSamples, type RecordResult } from "./database";
import type { BenchEngine } from "./engines";
import { closedLoop, type LoadPlan } from "./http-load";
import { ensureBuild, portInUse, startServer, waitUntilServing, type Cleanups, type Server } from "./next-server";
import { formatMs, type Target } from "./report";

const PORT = 3450;
const PLAYBOOK = "Agents under load";
const CONTEXT_PATH = `/api/v1/playbooks/${encodeURIComponent(PLAYBOOK)}/context`;
const assignPath = (experiment: string) => `/api/v1/experiments/${encodeURIComponent(experiment)}/assign`;
/** The streams' p95 targets: PostgreSQL 50 ms, PGlite 100 ms. */
export const AGENT_TARGETS: Record<BenchEngine["name"], Target> = { PostgreSQL: { maxMs: 50 }, PGlite: { maxMs: 100 } };
const MIN_NOT_MODIFIED_SHARE = 0.9;
const MAX_RSS_GROWTH_MB = 150;
const CACHED_POLLS_PER_SECOND = 1_000;
const REQUEST_TIMEOUT_MS = 30_000;

export interface AgentsPlan {
  agents: number;
  /** Seconds of load; the first `warmupS` are not counted. */
  seconds: number;
  warmupS: number;
  /**
   * At most this many seconds after the load for the server to work off what it queued (reflections,
   * curations) and go idle, before the "after" memory is read.
   */
  drainMaxS: number;
  /** The closed loop of cached polls after the load; the soak has none. */
  cachedPolls?: LoadPlan;
}

/**
 * The soak (issue 15, item 4): the same agents for minutes rather than one, to see whether the
 * server's memory levels off. A server that keeps growing would fail in time whatever its peak.
 */
const SOAK_MAX_LATE_GROWTH_MB = 50;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * Idle: the server's processes used under this share of one core over the window. A server working
 * off queued reflections is not idle, whatever its request rate: its memory then is not idle memory.
 */
const IDLE_CPU_SHARE = 0.05;
const IDLE_WINDOW_MS = 5_000;
/** The warm-up before the idle baseline: this many agents, each assigning itself, polling and posting a few traces. */
const WARM_UP = { agents: 10, traces: 3, maxIdleWaitS: 120 } as const;

interface Idle {
  /** Whether the server went idle before the deadline (false too when its CPU time cannot be read). */
  idle: boolean;
  waitedMs: number;
}

const idleText = ({ idle, waitedMs }: Idle) =>
  idle ? `idle ${Math.round(waitedMs / 1000)} s later` : `${Math.round(waitedMs / 1000)} s later, at the deadline`;

/** Waits, window by window, until the server is idle (IDLE_CPU_SHARE) or maxMs have passed. */
async function waitUntilIdle(server: Server, maxMs: number): Promise<Idle> {
  const start = performance.now();
  let cpu = server.cpuMs();
  while (cpu !== null && performance.now() - start < maxMs) {
    await sleep(IDLE_WINDOW_MS);
    const now = server.cpuMs();
    if (now === null) break;
    if (now - cpu < IDLE_CPU_SHARE * IDLE_WINDOW_MS) return { idle: true, waitedMs: performance.now() - start };
    cpu = now;
  }
  return { idle: false, waitedMs: performance.now() - start };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One request. A request whose kept-alive connection the server had just closed (ECONNRESET on a
 * reused socket: the server drops connections idle for 5 s) is sent once more on a new one, as HTTP
 * clients do for idempotent requests (RFC 9112, 9.3.1). Every request of a simulated agent is
 * idempotent: a GET, a trace with its externalId (stored once), a sticky assignment. Its time still
 * runs from the first attempt. The second attempt opens a connection of its own: taken from the
 * pool, it could land on another kept-alive socket the server is closing at the same moment (seen as a
 * "socket hang up" on the retry).
 */
function call(
  agent: http.Agent,
  origin: URL,
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string>,
  body?: string,
  retried = false,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body);
    const request = http.request(
      {
        host: origin.hostname,
        port: origin.port,
        method,
        path,
        // false: a new connection, outside the pool (see above).
        agent: retried ? false : agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: payload ? { ...headers, "content-type": "application/json", "content-length": payload.length } : headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error(`${method} ${path} took longer than ${REQUEST_TIMEOUT_MS} ms`)));
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (!retried && request.reusedSocket && error.code === "ECONNRESET") {
        call(agent, origin, method, path, headers, body, true).then(resolve, reject);
      } else {
        reject(error);
      }
    });
    request.end(payload);
  });
}

interface Stream {
  latencies: number[];
  errors: number;
  firstError: string | null;
  notModified: number;
}

const newStream = (): Stream => ({ latencies: [], errors: 0, firstError: null, notModified: 0 });

interface LoadOutcome {
  context: Stream;
  traces: Stream;
  assign: Stream;
  rss: {
    /** Right after the start, having served one page. */
    cold: number | null;
    /** Idle after the warm-up: every route the agents call loaded, its first reflections done. */
    before: number | null;
    peak: number | null;
    /** Idle again after the load, once what it queued is worked off (or at the drain's deadline). */
    after: number | null;
    samples: { atS: number; bytes: number }[];
  };
  warmUp: Idle;
  drain: Idle;
  sentPerSecond: number;
}

/**
 * The open loop: agent i starts at i/agents of a second and ticks every second from then, whatever
 * the answers; a request's time runs from its scheduled start, so a server that falls behind is seen
 * as slower rather than hidden by fewer requests.
 */
async function agentLoad(server: Server, plan: AgentsPlan, apiKey: string, ids: string[], experiment: string): Promise<LoadOutcome> {
  const origin = new URL(server.origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.agents * 2 });
  const auth = { authorization: `Bearer ${apiKey}` };
  const outcome: LoadOutcome = {
    context: newStream(),
    traces: newStream(),
    assign: newStream(),
    rss: { cold: null, before: null, peak: null, after: null, samples: [] },
    warmUp: { idle: false, waitedMs: 0 },
    drain: { idle: false, waitedMs: 0 },
    sentPerSecond: 0,
  };
  const rss = () => server.rssBytes();
  outcome.rss.cold = rss();
  // The baseline is the server idle once it has served what the agents ask (their routes' code
  // loaded, the tokenizer read, the first reflections run): the load's growth is measured from there.
  await Promise.all(
    Array.from({ length: WARM_UP.agents }, async (_, index) => {
      const unitId = `warm-up-${index}`;
      const answers = [
        await call(agent, origin, "POST", assignPath(experiment), auth, JSON.stringify({ unitId })),
        await call(agent, origin, "GET", CONTEXT_PATH, auth),
      ];
      for (let trace = 0; trace < WARM_UP.traces; trace += 1) {
        const body = {
          playbook: PLAYBOOK,
          externalId: `${unitId}-${trace}`,
          task: `Warm-up task ${trace}`,
          output: "Done.",
          outcome: "success",
        };
        answers.push(
          await call(agent, origin, "POST", "/api/v1/traces", auth, JSON.stringify({ ...body, citedBulletIds: [ids[index % ids.length]] })),
        );
      }
      const failed = answers.find((answer) => answer.status >= 300);
      check(!failed, `the warm-up got HTTP ${failed?.status}: ${failed?.body.slice(0, 200)}`);
    }),
  );
  outcome.warmUp = await waitUntilIdle(server, WARM_UP.maxIdleWaitS * 1000);
  outcome.rss.before = rss();
  const start = performance.now();
  const sampler = setInterval(() => {
    const now = rss();
    if (now === null) return;
    outcome.rss.peak = Math.max(outcome.rss.peak ?? 0, now);
    outcome.rss.samples.push({ atS: (performance.now() - start) / 1000, bytes: now });
  }, 500);

  const countFrom = start + plan.warmupS * 1000;
  const end = start + plan.seconds * 1000;
  let sent = 0;
  /** Times one request from `scheduled`; counted when `counted` (after the warm-up). */
  const timed = async (
    stream: Stream,
    scheduled: number,
    counted: boolean,
    work: () => Promise<Answer>,
    ok: (answer: Answer) => boolean,
  ) => {
    sent += 1;
    try {
      const answer = await work();
      if (!ok(answer)) throw new Error(`HTTP ${answer.status}: ${answer.body.slice(0, 200)}`);
      if (counted) {
        stream.latencies.push(performance.now() - scheduled);
        if (answer.status === 304) stream.notModified += 1;
      }
    } catch (error) {
      if (counted) {
        stream.errors += 1;
        stream.firstError ??= (error as Error).message;
      }
    }
  };

  const runAgent = async (index: number) => {
    const unitId = `agent-${index}`;
    let etag: string | null = null;
    const pending: Promise<void>[] = [];
    await sleep((index / plan.agents) * 1000);
    // Every agent's one assignment is counted, though it falls in the warm-up.
    await timed(
      outcome.assign,
      performance.now(),
      true,
      () => call(agent, origin, "POST", assignPath(experiment), auth, JSON.stringify({ unitId })),
      (answer) => answer.status === 200,
    );
    for (let tick = 0; ; tick += 1) {
      const scheduled = start + (index / plan.agents) * 1000 + tick * 1000;
      if (scheduled >= end) break;
      const wait = scheduled - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(
        timed(
          outcome.context,
          scheduled,
          scheduled >= countFrom,
          async () => {
            const answer = await call(agent, origin, "GET", CONTEXT_PATH, etag ? { ...auth, "if-none-match": etag } : auth);
            if (answer.status === 200 && typeof answer.headers.etag === "string") etag = answer.headers.etag;
            return answer;
          },
          (answer) => answer.status === 200 || answer.status === 304,
        ),
        timed(
          outcome.traces,
          scheduled,
          scheduled >= countFrom,
          () =>
            call(
              agent,
              origin,
              "POST",
              "/api/v1/traces",
              auth,
              JSON.stringify({
                playbook: PLAYBOOK,
                externalId: `${unitId}-${tick}`,
                task: `Task ${tick} of ${unitId}: how much did I send on Venmo last month?`,
                output: "Done.",
                outcome: (index + tick) % 4 === 0 ? "failure" : "success",
                citedBulletIds: [ids[(index + tick) % ids.length], ids[(index * 7 + tick) % ids.length]],
                experiment,
                unitId,
              }),
            ),
          (answer) => answer.status === 200 || answer.status === 201 || answer.status === 202,
        ),
      );
    }
    await Promise.all(pending);
  };

  try {
    await Promise.all(Array.from({ length: plan.agents }, (_, index) => runAgent(index)));
    outcome.sentPerSecond = sent / plan.seconds; // sent on schedule, whatever the answers
    outcome.drain = await waitUntilIdle(server, plan.drainMaxS * 1000);
    outcome.rss.after = rss();
    return outcome;
  } finally {
    clearInterval(sampler);
    agent.destroy();
  }
}

export interface AgentsSeed {
  apiKey: string;
  /** Bullet ids the agents cite. */
  ids: string[];
  experiment: string;
}

/** The playbook, its running experiment and the agents' API key, written while the bench holds the database. */
export async function seedAgents(engine: BenchEngine, record: RecordResult): Promise<AgentsSeed | null> {
  let seed: AgentsSeed | null = null;
  await guarded(record, `Agents: seed`, engine.name, async () => {
    const { playbookId } = await importAppWorld(engine, PLAYBOOK);
    const bullets = await engine.db.bullet.findMany({ where: { playbookId, status: "active" }, select: { externalId: true }, take: 40 });
    const ids = bullets.map((bullet) => bullet.externalId);
    check(ids.length >= 2, "the imported playbook has fewer than two bullets to cite");
    const experiment = `agents-${Date.now().toString(36)}`;
    await createExperiment(
      engine.db,
      systemWho(ACTOR),
      createExperimentInput.parse({
        key: experiment,
        playbook: PLAYBOOK,
        status: "running",
        variants: [{ key: "control" }, { key: "treatment" }],
      }),
    );
    const created = await createApiKey(
      engine.db,
      systemWho(ACTOR).audit,
      { secret: null },
      {
        name: `bench agents ${Date.now()}`,
        scopes: ["context:read", "traces:write", "experiments:assign"],
        playbooks: "all",
        rateLimitPerMinute: 10_000_000,
      },
    );
    seed = { apiKey: created.secret, ids, experiment };
  });
  return seed;
}

/** The soak's figures: server RSS at the end of each minute of the load, and how much it grew in its second half. */
function memoryTrend(samples: readonly { atS: number; bytes: number }[], seconds: number) {
  const during = samples.filter((sample) => sample.atS <= seconds);
  const peakOf = (from: number, to: number) =>
    Math.max(0, ...during.filter((sample) => sample.atS >= from && sample.atS < to).map((sample) => sample.bytes));
  const lateGrowth = peakOf(seconds / 2, seconds + 1) - peakOf(0, seconds / 2);
  const minutes = Array.from({ length: Math.floor(seconds / 60) }, (_, index) => {
    const at = (index + 1) * 60;
    const sample = during.findLast((candidate) => candidate.atS <= at);
    return sample ? `${index + 1} min ${mb(sample.bytes)}` : null;
  }).filter(Boolean);
  return { lateGrowth, minutes: minutes.join(", ") };
}

/**
 * Serves the engine's database (released first: on PGlite one process owns the folder) and runs the
 * load: the minute of agents and the closed loop of cached polls, or with `soak` the agents alone
 * for the plan's minutes, judged on whether the server's memory levels off. Call it last.
 */
export async function agentsBenchmarks(
  engine: BenchEngine,
  seed: AgentsSeed,
  plan: AgentsPlan,
  cleanups: Cleanups,
  record: RecordResult,
  { soak = false }: { soak?: boolean } = {},
): Promise<void> {
  const { apiKey, ids, experiment } = seed;
  const engineLabel = `${engine.name} (next start)`;
  const load = soak ? `${plan.agents} agents for ${Math.round(plan.seconds / 60)} minutes` : `${plan.agents} agents at once`;
  const fail = (message: string) => record({ kind: "error", benchmark: load, engine: engineLabel, message });
  const build = await ensureBuild();
  if (!build.ok) return fail(build.reason);
  if (await portInUse(PORT)) return fail(`Port ${PORT} is taken; stop whatever listens there and rerun.`);
  await engine.release();

  const server = startServer(PORT, engine.serverEnv);
  const stop = () => server.stop();
  cleanups.add(stop);
  try {
    const up = await guarded(record, `${load}: server start`, engineLabel, () => waitUntilServing(server, `${server.origin}/playbooks`));
    if (!up) return;
    const target = AGENT_TARGETS[engine.name];
    let drained = false;
    await guarded(record, load, engineLabel, async () => {
      const result = await agentLoad(server, plan, apiKey, ids, experiment);
      drained = result.drain.idle;
      const { before, peak, after } = result.rss;
      const growth = before !== null && peak !== null ? peak - before : null;
      const trend = soak && before !== null ? memoryTrend(result.rss.samples, plan.seconds) : null;
      const memory =
        before === null
          ? "The server's memory could not be read (no /proc)."
          : `Server RSS (every process of next start): ${mb(result.rss.cold ?? before)} right after the start; ${mb(before)} idle ` +
            `after a warm-up (${WARM_UP.agents} agents each assigning itself, polling once and posting ${WARM_UP.traces} traces; ` +
            `${idleText(result.warmUp)}); ${mb(peak ?? before)} at the peak; ${mb(after ?? before)} after the load, ` +
            `${result.drain.idle ? `once the server had worked off what it queued and gone idle (${idleText(result.drain)})` : `still busy ${idleText(result.drain)}`}.`;
      const streams: [string, Stream, string][] = [
        ["context poll (If-None-Match)", result.context, "GET /api/v1/playbooks/{name}/context with the agent's last ETag, once a second"],
        ["trace post", result.traces, "POST /api/v1/traces, one trace citing two bullets, once a second"],
        ["assignment (once per agent)", result.assign, "POST /api/v1/experiments/{key}/assign, each agent's first call"],
      ];
      for (const [name, stream, what] of streams) {
        if (stream.latencies.length === 0) {
          record({
            kind: "error",
            benchmark: `${load}: ${name}`,
            engine: engineLabel,
            message: `no answer was timed: ${stream.firstError ?? "nothing sent"}`,
          });
          continue;
        }
        const share = stream === result.context ? stream.notModified / Math.max(1, stream.latencies.length) : null;
        const extra = [
          { text: "no errors", met: stream.errors === 0 },
          ...(share === null ? [] : [{ text: `304s ≥ ${MIN_NOT_MODIFIED_SHARE * 100} %`, met: share >= MIN_NOT_MODIFIED_SHARE }]),
          ...(stream === result.traces && growth !== null
            ? [{ text: `RSS growth ≤ ${MAX_RSS_GROWTH_MB} MB`, met: growth <= MAX_RSS_GROWTH_MB * 1024 * 1024 }]
            : []),
          ...(stream === result.traces && trend
            ? [
                {
                  text: `RSS growth in the second half ≤ ${SOAK_MAX_LATE_GROWTH_MB} MB`,
                  met: trend.lateGrowth <= SOAK_MAX_LATE_GROWTH_MB * 1024 * 1024,
                },
              ]
            : []),
        ];
        recordSamples(record, `${load}: ${name}`, engineLabel, stream.latencies, {
          ...(stream === result.assign ? {} : { target }),
          extra,
          note:
            `${what}; ${plan.agents} agents, ${plan.seconds} s open loop (${Math.round(result.sentPerSecond)} requests/s sent), ` +
            `the first ${plan.warmupS} s not counted; times from each request's scheduled start. ` +
            `${stream.latencies.length.toLocaleString("en")} answered, ${stream.errors} errors` +
            (stream.firstError ? ` (first: ${stream.firstError.slice(0, 160)})` : "") +
            (share === null ? "" : `, ${(share * 100).toFixed(1)} % answered 304`) +
            `. ${memory}` +
            (trend
              ? ` RSS at the end of each minute: ${trend.minutes}; the second half's peak was ${mb(Math.abs(trend.lateGrowth))} ` +
                `${trend.lateGrowth >= 0 ? "above" : "below"} the first half's.`
              : "") +
            ` The offline reflector and curator run on the traces meanwhile.`,
        });
      }
    });

    const { cachedPolls } = plan;
    if (!cachedPolls) return; // the soak's plan has none
    await guarded(record, "Cached context polls (304), closed loop", engineLabel, async () => {
      const first = await call(new http.Agent(), new URL(server.origin), "GET", CONTEXT_PATH, { authorization: `Bearer ${apiKey}` });
      check(first.status === 200 && typeof first.headers.etag === "string", `GET context answered HTTP ${first.status}`);
      const etag = first.headers.etag;
      let notModified = 0;
      const cpuBefore = server.cpuMs();
      const polls = await closedLoop(
        server.origin,
        cachedPolls,
        () => ({ method: "GET", path: CONTEXT_PATH, headers: { authorization: `Bearer ${apiKey}`, "if-none-match": etag } }),
        (status) => {
          if (status === 304) notModified += 1;
          else if (status !== 200) throw new Error(`GET context answered HTTP ${status}`);
        },
      );
      const cpuAfter = server.cpuMs();
      const perSecond = (polls.latencies.length * 1000) / polls.elapsedMs;
      const requests = cachedPolls.warmup + cachedPolls.requests;
      recordSamples(record, "Cached context polls (304), closed loop", engineLabel, polls.latencies, {
        throughput: { perSecond, unit: "polls/s", target: { minPerSecond: CACHED_POLLS_PER_SECOND } },
        note:
          `GET /api/v1/playbooks/{name}/context with If-None-Match and a Bearer key, ${cachedPolls.concurrency} clients in a closed loop ` +
          `over kept-alive connections, ${cachedPolls.warmup} untimed then ${cachedPolls.requests} timed, after the agents' ` +
          `load${drained ? ", the server idle again" : ", its queued work not yet done"}; ${((notModified / requests) * 100).toFixed(1)} % answered 304` +
          (cpuBefore === null || cpuAfter === null
            ? "."
            : `; the server's processes used ${formatMs((cpuAfter - cpuBefore) / requests)} of CPU per poll.`),
      });
    });
  } finally {
    await stop();
    cleanups.delete(stop);
  }
}

/** Lines for "How these were measured". */
export function agentsNotes(plan: AgentsPlan, soak: AgentsPlan): string[] {
  return [
    `Soak (only with --only soak): the same agents for ${Math.round(soak.seconds / 60)} minutes on the same playbook, to see whether ` +
      `the server's memory levels off (target: its peak in the second half of the load at most ${SOAK_MAX_LATE_GROWTH_MB} MB above ` +
      `the first half's; PGlite's WebAssembly memory never shrinks, so returning to idle is not the test).`,
    `${plan.agents} agents at once (issue 15; targets p95 ≤ ${formatMs(AGENT_TARGETS.PostgreSQL.maxMs)} on PostgreSQL and ≤ ` +
      `${formatMs(AGENT_TARGETS.PGlite.maxMs)} on PGlite, ≥ ${MIN_NOT_MODIFIED_SHARE * 100} % of conditional polls answered 304, server ` +
      `RSS growing by ≤ ${MAX_RSS_GROWTH_MB} MB, ≥ ${CACHED_POLLS_PER_SECOND.toLocaleString("en")} cached polls/s): \`next start -p ${PORT}\` ` +
      `on the engine's database holding the AppWorld playbook and a running experiment, the offline reflector and curator on. Each ` +
      `agent assigns itself once, then every second polls the context with its last ETag and posts a trace, on a fixed schedule ` +
      `(open loop), for ${plan.seconds} s; the load generator runs in the bench's process on the same cores as the server and the database. ` +
      `Memory: the growth is the peak over the server idle after a warm-up (each route the agents call served, its first ` +
      `reflections run: code loaded once is not growth); after the load the bench waits (at most ${plan.drainMaxS} s) until the ` +
      `server has worked off the reflections and curations the load queued and is idle (its processes under ` +
      `${IDLE_CPU_SHARE * 100} % of a core over ${IDLE_WINDOW_MS / 1000} s), then reads it again and runs the closed loop of cached polls.`,
  ];
}
