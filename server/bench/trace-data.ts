// Traces as an AppWorld-style ReAct agent reports them: a task, 1–2 KB of reasoning that cites 2–5
// bullets of the playbook it ran with, the final code, an outcome and the environment's feedback.
// Seeded: the same seed gives the same traces, so runs on different days ingest the same text.
import type { z } from "zod";
import type { traceInputSchema } from "@/server/traces/schemas";
import { seededRandom } from "./synthetic";

/** One trace as an agent sends it (the body of POST /api/v1/traces, or one entry of its batch). */
export type TraceBody = z.input<typeof traceInputSchema>;

export const REASONING_CHARS = { min: 1_000, max: 2_000 } as const;
export const CITED_BULLETS = { min: 2, max: 5 } as const;

/** The ids of a playbook in ACE text ("[shr-00005] …" lines), in reading order. */
export function bulletIdsOf(text: string): string[] {
  return [...text.matchAll(/^\[([^\]\s]+)\]/gm)].map((match) => match[1] as string);
}

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function int(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** `count` different items, in a random order. */
function sample<T>(random: Random, items: readonly T[], count: number): T[] {
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
  }
  return pool.slice(0, count);
}

const PEOPLE = ["Jasmine", "Tomás", "Priya", "Kevin", "Aisha", "Marcus", "Elena", "Wei", "Nadia", "Oliver"];
const RELATIONS = ["roommate", "sister", "manager", "coworker", "partner", "brother"];
const PERIODS = [
  { text: "yesterday", days: 1 },
  { text: "last week", days: 7 },
  { text: "last month", days: 30 },
  { text: "this year", days: 365 },
];
const THINGS = ["dinner", "groceries", "concert tickets", "electricity", "internet", "rent", "team lunch", "road trip"];
const PLAYLISTS = ["Morning Run", "Focus", "Road Trip 2023", "Chill Evenings", "Throwbacks"];
const FIELDS = ["amount", "due_date", "release_date", "rating", "created_at", "note"];

interface Task {
  app: string;
  api: string;
  text: string;
  /** What the agent answers; null for tasks that change something instead. */
  answer: string | null;
  /** The right answer, which a failed run missed. */
  expected: string | null;
}

const TASKS: ((random: Random) => Task)[] = [
  (r) => {
    const period = pick(r, PERIODS);
    const amount = () => (int(r, 1_000, 90_000) / 100).toFixed(2);
    return {
      app: "venmo",
      api: "show_transactions",
      text: `How much money have I sent to my ${pick(r, RELATIONS)} ${pick(r, PEOPLE)} on Venmo ${period.text}? Return the total in dollars.`,
      answer: amount(),
      expected: amount(),
    };
  },
  (r) => ({
    app: "spotify",
    api: "show_playlist",
    text: `Like every song in my Spotify playlist "${pick(r, PLAYLISTS)}" that was released after ${int(r, 2005, 2022)} and has a rating of at least ${int(r, 3, 5)} stars.`,
    answer: null,
    expected: null,
  }),
  (r) => ({
    app: "todoist",
    api: "show_tasks",
    text: `Mark all my Todoist tasks in the "${pick(r, ["Home", "Work", "Errands", "Side project"])}" project that were due ${pick(r, PERIODS).text} as completed.`,
    answer: null,
    expected: null,
  }),
  (r) => ({
    app: "gmail",
    api: "show_inbox_threads",
    text: `Reply to the most recent email from ${pick(r, PEOPLE)} about the ${pick(r, THINGS)} with "Thanks, that works for me."`,
    answer: null,
    expected: null,
  }),
  (r) => ({
    app: "splitwise",
    api: "create_expense",
    text: `Split the ${pick(r, THINGS)} bill of $${int(r, 20, 400)} equally with my roommates on Splitwise and attach the receipt from ~/documents/receipts.`,
    answer: null,
    expected: null,
  }),
  (r) => ({
    app: "simple_note",
    api: "create_note",
    text: `Create a note in Simple Note titled "Top songs" listing the titles of the songs I played most ${pick(r, PERIODS).text}, one per line.`,
    answer: null,
    expected: null,
  }),
  (r) => ({
    app: "file_system",
    api: "show_directory",
    text: `Find the file in ~/downloads that mentions "${pick(r, THINGS)}" and move it to ~/documents/${pick(r, ["bills", "travel", "work"])}.`,
    answer: null,
    expected: null,
  }),
  (r) => ({
    app: "amazon",
    api: "show_wish_list",
    text: `Order the product from my Amazon wish list with the best rating under $${int(r, 30, 150)} and ship it to my home address.`,
    answer: null,
    expected: null,
  }),
  (r) => ({
    app: "phone",
    api: "search_contacts",
    text: `What is the phone number of my ${pick(r, RELATIONS)}? Send them a text saying "Running ${int(r, 5, 30)} minutes late."`,
    answer: `+1${int(r, 200, 999)}${int(r, 1_000_000, 9_999_999)}`,
    expected: `+1${int(r, 200, 999)}${int(r, 1_000_000, 9_999_999)}`,
  }),
  (r) => ({
    app: "venmo",
    api: "show_received_payment_requests",
    text: `Return the number of Venmo payment requests I declined ${pick(r, PERIODS).text}.`,
    answer: String(int(r, 0, 12)),
    expected: String(int(r, 0, 12)),
  }),
];

/** One step of the agent's reasoning, about the task's app. */
const STEPS: ((r: Random, task: Task) => string)[] = [
  (r, t) =>
    `I need to know which ${t.app} APIs can do this. I listed them with apis.api_docs.show_api_descriptions(app_name='${t.app}') and read ` +
    `the doc of ${t.api} with apis.api_docs.show_api_doc(app_name='${t.app}', api_name='${t.api}'): it takes access_token, page_index and page_limit (max ${pick(r, [20, 50, 100])}).`,
  (_r, t) =>
    `To log in I took the ${t.app} password from apis.supervisor.show_account_passwords() and called apis.${t.app}.login() with my ` +
    `supervisor email; it returned an access_token that I pass to every later call.`,
  (r, t) =>
    `The ${t.api} API returns results in pages, so I looped over page_index from 0 until a page came back empty instead of reading only the first one. ` +
    `That gave ${int(r, 12, 240)} items in ${int(r, 2, 9)} pages.`,
  (r) => {
    const period = pick(r, PERIODS);
    return (
      `"${period.text}" depends on today's date, so I computed the range in code: start = (datetime.now() - timedelta(days=${period.days})).strftime('%Y-%m-%d'), ` +
      `and compared each item's timestamp with pendulum.parse() rather than comparing strings.`
    );
  },
  (r) =>
    `Some items had a null ${pick(r, FIELDS)}; I skipped them instead of failing, and printed how many were skipped (${int(r, 0, 9)}) to check that assumption before going on.`,
  (r) =>
    `Before doing anything irreversible I printed the candidates and checked them against the task: ${int(r, 1, 14)} matched the condition, ` +
    `the others did not, mostly because of the date filter.`,
  () =>
    `I wrote one small chunk of code per step and looked at its output before writing the next one, so a wrong field name shows up at once and not three steps later.`,
  (r, t) =>
    `The first call failed with ${pick(r, ["a 422 (missing field 'access_token')", "KeyError: 'amount'", "a 401: the token had expired", "TypeError: 'NoneType' object is not subscriptable"])}; ` +
    `I re-read the ${t.api} doc, fixed the call and ran the step again.`,
  (r, t) =>
    `I matched people by their email from apis.phone.search_contacts(query='${pick(r, PEOPLE)}') rather than by first name, because two of my ${t.app} contacts share a first name.`,
  (r) =>
    `Amounts come back as floats, so I summed them with round(sum(amounts), 2) and kept ${int(r, 2, 3)} decimals until the end to avoid rounding drift.`,
];

const OUTPUTS: ((r: Random, task: Task) => string)[] = [
  (r, t) =>
    "```python\n" +
    `items = []\npage_index = 0\nwhile True:\n    page = apis.${t.app}.${t.api}(access_token=token, page_index=page_index, page_limit=${pick(r, [20, 50, 100])})\n` +
    `    if not page:\n        break\n    items.extend(page)\n    page_index += 1\n` +
    (t.answer === null
      ? `for item in selected:\n    apis.${t.app}.${t.api.replace("show_", "update_")}(access_token=token, item_id=item["id"])\napis.supervisor.complete_task()\n`
      : `answer = ${JSON.stringify(t.answer)}\napis.supervisor.complete_task(answer=answer)\n`) +
    "```",
  (r, t) =>
    `Done. ${t.answer === null ? `Updated ${int(r, 1, 14)} ${t.app} items` : `The answer is ${t.answer}`}; ` +
    `I called apis.supervisor.complete_task(${t.answer === null ? "" : `answer=${JSON.stringify(t.answer)}`}) after checking the result.`,
];

export interface TraceSource {
  /** The next `count` traces, each with a new external id. */
  next(count: number): TraceBody[];
  /** Traces made so far. */
  readonly made: number;
}

/**
 * Traces for `playbook` that cite bullets of `bulletIds`. External ids are `<idPrefix>-<n>`, unique
 * per source: give each source a prefix no earlier run used.
 */
export function traceSource({
  playbook,
  bulletIds,
  idPrefix,
  seed = 0x7ace5,
}: {
  playbook: string;
  bulletIds: readonly string[];
  idPrefix: string;
  seed?: number;
}): TraceSource {
  if (bulletIds.length < CITED_BULLETS.max)
    throw new Error(`Traces cite up to ${CITED_BULLETS.max} bullets; the playbook has ${bulletIds.length}.`);
  const random = seededRandom(seed);
  let made = 0;

  const one = (): TraceBody => {
    const task = pick(random, TASKS)(random);
    const cited = sample(random, bulletIds, int(random, CITED_BULLETS.min, CITED_BULLETS.max));
    const target = int(random, REASONING_CHARS.min, REASONING_CHARS.max);
    // Steps in a random order, each used once, until the reasoning is long enough and every cited
    // bullet has a step of its own; the last step hands the task in.
    const steps: string[] = [];
    let length = 0;
    for (const step of sample(random, STEPS, STEPS.length)) {
      if (length >= target - 120 && steps.length >= cited.length) break;
      const id = cited[steps.length];
      const text = step(random, task) + (id ? ` This follows [${id}].` : "");
      steps.push(text);
      length += text.length + 9;
    }
    steps.push(
      `Everything checked out, so I ${task.answer === null ? "completed the task" : "returned the answer"} with apis.supervisor.complete_task.`,
    );
    const reasoning = steps.map((text, index) => `Step ${index + 1}: ${text}`).join("\n");

    const roll = random();
    const outcome = roll < 0.65 ? "success" : roll < 0.95 ? "failure" : "unknown";
    const checks = int(random, 3, 6);
    const feedback =
      outcome === "success"
        ? { testResults: `All ${checks} checks passed.` }
        : outcome === "failure"
          ? {
              errors: [
                pick(random, [
                  `AssertionError: expected ${int(random, 2, 9)} items updated, found ${int(random, 0, 1)}.`,
                  "AssertionError: the answer does not match the expected value.",
                  "apis.supervisor.complete_task was called before every page was read.",
                  "Unexpected change: a private playlist was modified.",
                ]),
              ],
              testResults: `${int(random, 0, checks - 1)} of ${checks} checks passed.`,
              ...(task.expected === null ? {} : { groundTruth: task.expected }),
            }
          : null;

    made += 1;
    return {
      playbook,
      externalId: `${idPrefix}-${made}`,
      task: task.text,
      reasoning,
      output: pick(random, OUTPUTS)(random, task),
      outcome,
      feedback,
      durationMs: int(random, 4_000, 90_000),
      usage: { inputTokens: int(random, 4_000, 20_000), outputTokens: int(random, 300, 2_000) },
      metadata: {
        agent: "appworld-react",
        model: "gpt-4.1",
        taskId: `appworld-${int(random, 100_000, 999_999).toString(16)}`,
        steps: steps.length,
      },
    };
  };

  return {
    next: (count) => Array.from({ length: count }, one),
    get made() {
      return made;
    },
  };
}
