// Group commit for agents' trace posts (POST /api/v1/traces). A hundred agents posting a trace a
// second each would otherwise pay a transaction, its queries and the reflection trigger per trace,
// and the server would spend its time on that overhead rather than on the traces. Here posts that
// arrive while a group is being written wait for it to finish and are then written together, in one
// ingestTraces call: one transaction, one lookup of the playbooks, experiments and redaction
// settings, one INSERT, one queueing of their reflections.
//
// Nothing changes for a post but how long it waits:
// - A post that finds nothing being written waits a few turns of the event loop (no timer: well under
//   a millisecond when the server is idle) for the posts whose requests are still being read, then is
//   written with them. On PGlite a write holds the event loop's thread, so no request is read while
//   it runs; the ones read right after it reach the queue over the next turns (headers, body, route).
//   Without that wait every write took only the first of them: at 100 posts a second on PGlite each
//   post was written alone (100 posts, 100 groups), the server fell behind and answers took seconds.
// - Each post gets the answer it would have had alone. Its traces come back in its order; a trace
//   whose external id an earlier post of the same group sent is a duplicate of that one, as if the
//   posts had come one after the other.
// - All or nothing per post. If the group is refused (one post names an unknown playbook, or a
//   variant its experiment does not have), every post of it is written again alone, so the
//   refusal reaches only the post it belongs to and the others are stored as if nothing happened.
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Db } from "@/server/db/client";
import type { IngestResult, TraceInput } from "./schemas";
import { ingestTraces, type TraceSource } from "./service";

/** Traces one group takes at most (a larger post is written alone). Ingestion per trace is cheapest around here. */
export const GROUP_MAX_TRACES = 200;

/** Event-loop turns a writer waits before taking a group (see the top of this file). */
export const GATHER_TURNS = 4;

interface Post {
  items: TraceInput[];
  resolve(result: IngestResult): void;
  reject(error: unknown): void;
}

interface Queue {
  waiting: Post[];
  writing: boolean;
  /** What happened so far: for tests and the bench, which check that posts are grouped. */
  stats: { posts: number; groups: number; refusedGroups: number };
}

const queues = new WeakMap<Db, Map<TraceSource, Queue>>();

function queueOf(db: Db, source: TraceSource): Queue {
  let bySource = queues.get(db);
  if (!bySource) {
    bySource = new Map();
    queues.set(db, bySource);
  }
  let queue = bySource.get(source);
  if (!queue) {
    queue = { waiting: [], writing: false, stats: { posts: 0, groups: 0, refusedGroups: 0 } };
    bySource.set(source, queue);
  }
  return queue;
}

/** Stores one post's traces as ingestTraces does, written together with the posts that arrive meanwhile. */
export function ingestTracesGrouped(db: Db, items: TraceInput[], { source }: { source: TraceSource }): Promise<IngestResult> {
  const queue = queueOf(db, source);
  const result = new Promise<IngestResult>((resolve, reject) => queue.waiting.push({ items, resolve, reject }));
  queue.stats.posts += 1;
  if (!queue.writing) void writeAll(db, source, queue);
  return result;
}

/** Posts and groups written so far in this process for one database and source. */
export function groupCommitStats(db: Db, source: TraceSource): Readonly<Queue["stats"]> {
  return { ...queueOf(db, source).stats };
}

async function writeAll(db: Db, source: TraceSource, queue: Queue): Promise<void> {
  queue.writing = true;
  try {
    while (queue.waiting.length > 0) {
      for (let turn = 0; turn < GATHER_TURNS; turn += 1) await nextTurn();
      const group = takeGroup(queue);
      queue.stats.groups += 1;
      await writeGroup(db, source, queue, group);
    }
  } finally {
    queue.writing = false;
  }
}

/** The oldest waiting posts, up to GROUP_MAX_TRACES traces (always at least one post). */
function takeGroup(queue: Queue): Post[] {
  let traces = queue.waiting[0]!.items.length;
  let count = 1;
  while (count < queue.waiting.length && traces + queue.waiting[count]!.items.length <= GROUP_MAX_TRACES) {
    traces += queue.waiting[count]!.items.length;
    count += 1;
  }
  return queue.waiting.splice(0, count);
}

async function writeAlone(db: Db, source: TraceSource, post: Post): Promise<void> {
  try {
    post.resolve(await ingestTraces(db, post.items, { source }));
  } catch (error) {
    post.reject(error);
  }
}

async function writeGroup(db: Db, source: TraceSource, queue: Queue, group: Post[]): Promise<void> {
  if (group.length === 1) return writeAlone(db, source, group[0]!);
  let combined: IngestResult;
  try {
    combined = await ingestTraces(
      db,
      group.flatMap((post) => post.items),
      { source },
    );
  } catch {
    // Nothing of the group was stored (one transaction): each post again, alone, gets its own answer.
    queue.stats.refusedGroups += 1;
    for (const post of group) await writeAlone(db, source, post);
    return;
  }
  let offset = 0;
  for (const post of group) {
    const traces = combined.traces.slice(offset, offset + post.items.length);
    offset += post.items.length;
    const created = traces.filter((trace) => trace.status === "created").length;
    post.resolve({ traces, created, duplicates: traces.length - created });
  }
}
