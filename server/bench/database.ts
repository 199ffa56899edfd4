// The server-side benchmarks on one engine: importing a published playbook, opening the page of a
// 10,000-bullet playbook, and exporting it. Every call goes through the playbook service with input
// parsed by the procedures' own zod schemas, so it does what a request does minus HTTP.
import { readFile } from "node:fs/promises";
import {
  exportPlaybookInput,
  importPlaybookInput,
  listBulletsInput,
  PLAYBOOK_FORMATS,
  type BulletPage,
  type ListBulletsInput,
  type PlaybookFormat,
  type SectionSummary,
} from "@/server/playbooks/schemas";
import { loadSnapshot } from "@/server/deltas/engine-state";
import { getPlaybook, listBullets } from "@/server/playbooks/browse";
import { exportPlaybook } from "@/server/playbooks/export";
import { importPlaybook } from "@/server/playbooks/import";
import { listBullets as listBulletRows } from "@/server/playbooks/repository";
import type { BenchEngine } from "./engines";
import { measure, timeOnce, type RunPlan } from "./measure";
import { APPWORLD_FIXTURE } from "./paths";
import type { BenchResult, Target } from "./report";
import { summarize } from "./stats";
import type { SyntheticPlaybook } from "./synthetic";

export const ACTOR = "benchmark";
export const CALL_TIMEOUT_MS = 120_000;
const LARGE_IMPORT_TIMEOUT_MS = 600_000;

export const TARGETS = {
  import: { maxMs: 300 },
  // Issue 15 (item 5) brought the page from 50 ms down to 10 ms on both engines, and gave a 10k export 100 ms.
  page: { maxMs: 10 },
  export: { maxMs: 100 },
} satisfies Record<string, Target>;

export interface DatabasePlans {
  import: RunPlan;
  page: RunPlan;
  export: RunPlan;
}

export type RecordResult = (result: BenchResult) => void;

/** What a measured row adds to its samples: a target, a throughput, further checks, a note. */
type MeasuredDetails = Omit<Extract<BenchResult, { kind: "measured" }>, "kind" | "benchmark" | "engine" | "summary">;

/** Records the timed samples of `benchmark` on `engine` as a measured row. */
export function recordSamples(
  record: RecordResult,
  benchmark: string,
  engine: string,
  samples: readonly number[],
  details: MeasuredDetails = {},
): void {
  record({ kind: "measured", benchmark, engine, summary: summarize(samples), ...details });
}

/** A row (or rows) timed on the synthetic 10,000-bullet playbook, imported once as `playbookId`. */
export type SyntheticBenchmark = (
  engine: BenchEngine,
  synthetic: SyntheticPlaybook,
  playbookId: string,
  plan: RunPlan,
  record: RecordResult,
) => Promise<void>;

/** Runs `work`, turning a failure into an ERROR row so the other benchmarks still run. */
export async function guarded(record: RecordResult, benchmark: string, engine: string, work: () => Promise<void>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[bench] ${benchmark} on ${engine} failed:`, error);
    record({ kind: "error", benchmark, engine, message });
    return false;
  }
}

/**
 * Seeds once, timed, as a row without a target ("Setup, not a target: …"); the seed, or null when
 * seeding failed (its ERROR row is written).
 */
export async function seedOnce<T>(
  record: RecordResult,
  benchmark: string,
  engine: string,
  { timeoutMs, note }: { timeoutMs: number; note: string },
  seed: () => Promise<T>,
): Promise<T | null> {
  const seeded: { value: T | null } = { value: null };
  await guarded(record, benchmark, engine, async () => {
    const ms = await timeOnce(
      async () => {
        seeded.value = await seed();
      },
      timeoutMs,
      benchmark,
    );
    recordSamples(record, benchmark, engine, [ms], { note: `Setup, not a target: ${note}` });
  });
  return seeded.value;
}

export function check(condition: unknown, problem: string): asserts condition {
  if (!condition) throw new Error(`Sanity check failed: ${problem}`);
}

/** The import of the published AppWorld playbook (318 bullets, ace-plain) as a new playbook named `name`. */
export function appWorldImport(content: string, name: string) {
  return importPlaybookInput.parse({ content, fileName: "appworld_offline_trained_no_gt_playbook.txt", target: { kind: "new", name } });
}

/** Imports the AppWorld playbook once, untimed, for benchmarks that need a realistic playbook to work on. */
export async function importAppWorld(engine: Pick<BenchEngine, "db">, name: string): Promise<{ playbookId: string; content: string }> {
  const content = await readFile(APPWORLD_FIXTURE, "utf8");
  const result = await importPlaybook(engine.db, ACTOR, appWorldImport(content, name));
  check(result.bulletCount === 318, `expected 318 bullets imported, got ${result.bulletCount}`);
  return { playbookId: result.playbookId, content };
}

export async function importFixtureBenchmark(engine: BenchEngine, plan: RunPlan, record: RecordResult): Promise<void> {
  const benchmark = "Import AppWorld playbook (318 bullets, ace-plain)";
  await guarded(record, benchmark, engine.name, async () => {
    const content = await readFile(APPWORLD_FIXTURE, "utf8");
    const stamp = Date.now();
    const importAs = (call: number) => importPlaybook(engine.db, ACTOR, appWorldImport(content, `AppWorld bench ${stamp}-${call}`));
    const samples = await measure(
      async (call) => {
        const result = await importAs(call);
        check(result.bulletCount === 318, `expected 318 bullets imported, got ${result.bulletCount}`);
      },
      plan,
      CALL_TIMEOUT_MS,
      benchmark,
    );
    recordSamples(record, benchmark, engine.name, samples, { target: TARGETS.import });
  });
}

/** Imports the synthetic playbook once (timed, reported without a target); null when that failed. */
export async function importSynthetic(engine: BenchEngine, synthetic: SyntheticPlaybook, record: RecordResult): Promise<string | null> {
  const benchmark = `Import synthetic playbook (${synthetic.bulletCount.toLocaleString("en")} bullets, ace), once`;
  let playbookId: string | null = null;
  await guarded(record, benchmark, engine.name, async () => {
    let imported = 0;
    const ms = await timeOnce(
      async () => {
        const result = await importPlaybook(
          engine.db,
          ACTOR,
          importPlaybookInput.parse({ content: synthetic.text, format: "ace", target: { kind: "new", name: `Synthetic ${Date.now()}` } }),
        );
        playbookId = result.playbookId;
        imported = result.bulletCount;
      },
      LARGE_IMPORT_TIMEOUT_MS,
      benchmark,
    );
    check(imported === synthetic.bulletCount, `expected ${synthetic.bulletCount} bullets imported, got ${imported}`);
    recordSamples(record, benchmark, engine.name, [ms], {
      note: `${(synthetic.text.length / 1e6).toFixed(1)} MB of text, 12 sections, one transaction.`,
    });
  });
  return playbookId;
}

type BulletQuery = Omit<ListBulletsInput, "playbookId">;

/** What the playbook page asks for on the server: the playbook and the first page of its bullets, together. */
function openPage(engine: BenchEngine, playbookId: string, query: BulletQuery) {
  return Promise.all([
    getPlaybook(engine.db, playbookId),
    listBullets(engine.db, listBulletsInput.parse({ playbookId, sort: "position", limit: 200, ...query })),
  ]);
}

export const pageBenchmarks: SyntheticBenchmark = async (engine, synthetic, playbookId, plan, record) => {
  // The first getPlaybook after a change compiles and tokenizes the whole playbook (its token cache
  // is keyed by version); every page view after an edit pays this once.
  await guarded(record, "getPlaybook, first call after the import", engine.name, async () => {
    const ms = await timeOnce(() => getPlaybook(engine.db, playbookId), CALL_TIMEOUT_MS, "getPlaybook");
    recordSamples(record, "getPlaybook, first call after the import", engine.name, [ms], {
      note: "Includes compiling the 10,000 bullets to ACE text and counting its tokens (cached per version afterwards).",
    });
  });

  let section: SectionSummary | undefined;
  await guarded(record, "Playbook page setup", engine.name, async () => {
    const detail = await getPlaybook(engine.db, playbookId);
    section = detail.sections[3] ?? detail.sections[0];
    if (!section) throw new Error("The synthetic playbook has no sections.");
    // As a server holds it once anyone used the playbook (an edit, a context call, a curator opening
    // it); a list that finds no state is served by SQL (the "·" rows) and loads it in the background.
    await loadSnapshot(engine.db, playbookId);
  });
  if (!section) return;
  const filterSection = section;
  const variants: { label: string; query: BulletQuery; verify: (page: BulletPage) => void }[] = [
    {
      label: "position (page default)",
      query: { sort: "position" },
      verify: ({ items, total }) => {
        check(items.length === 200, `expected a first page of 200 bullets, got ${items.length}`);
        check(total === synthetic.bulletCount, `expected a total of ${synthetic.bulletCount}, got ${total}`);
      },
    },
    {
      label: `search "${synthetic.searchWord}" + section ${filterSection.name}`,
      query: { sort: "position", search: synthetic.searchWord, sectionIds: [filterSection.id] },
      verify: ({ items }) => {
        check(items.length > 0, "the filtered query found no bullets");
        check(
          items.every((item) => item.sectionId === filterSection.id && item.content.toLowerCase().includes(synthetic.searchWord)),
          "the filtered query returned bullets outside the filter",
        );
      },
    },
    {
      label: "sort by score",
      query: { sort: "score" },
      verify: ({ items }) => {
        const scores = items.map((item) => item.helpful - item.harmful);
        check(items.length === 200, `expected 200 bullets, got ${items.length}`);
        check(
          scores.every((score, i) => i === 0 || score <= (scores[i - 1] ?? score)),
          "bullets are not in descending score order",
        );
      },
    },
  ];

  for (const variant of variants) {
    const benchmark = `Playbook page, 10k bullets: ${variant.label}`;
    await guarded(record, benchmark, engine.name, async () => {
      const [, first] = await openPage(engine, playbookId, variant.query);
      variant.verify(first);
      const samples = await measure(() => openPage(engine, playbookId, variant.query), plan, CALL_TIMEOUT_MS, benchmark);
      recordSamples(record, benchmark, engine.name, samples, {
        target: TARGETS.page,
        ...(variant.query.search ? { note: `${first.total} bullets match the filter.` } : {}),
      });
    });
  }

  // The parts alone, to tell which one costs what when the page misses its target.
  await guarded(record, "· getPlaybook alone", engine.name, async () => {
    const samples = await measure(() => getPlaybook(engine.db, playbookId), plan, CALL_TIMEOUT_MS, "getPlaybook");
    recordSamples(record, "· getPlaybook alone", engine.name, samples);
  });
  for (const variant of variants) {
    const input = listBulletsInput.parse({ playbookId, sort: "position", limit: 200, ...variant.query });
    const benchmark = `· listBullets alone: ${variant.label}`;
    await guarded(record, benchmark, engine.name, async () => {
      const samples = await measure(() => listBullets(engine.db, input), plan, CALL_TIMEOUT_MS, benchmark);
      recordSamples(record, benchmark, engine.name, samples);
    });
    // What a list costs with no state cached (after a start, before anyone used the playbook).
    const bySql = `· the SQL list alone: ${variant.label}`;
    await guarded(record, bySql, engine.name, async () => {
      const samples = await measure(() => listBulletRows(engine.db, input, { count: false }), plan, CALL_TIMEOUT_MS, bySql);
      recordSamples(record, bySql, engine.name, samples);
    });
  }
};

export const exportBenchmarks: SyntheticBenchmark = async (engine, synthetic, playbookId, plan, record) => {
  for (const format of PLAYBOOK_FORMATS as readonly PlaybookFormat[]) {
    const name = `Export 10k bullets as ${format}`;
    await guarded(record, name, engine.name, async () => {
      const input = exportPlaybookInput.parse({ playbookId, format });
      const first = await exportPlaybook(engine.db, input);
      check(first.format === format, `asked for ${format}, got ${first.format}`);
      check(first.content.includes(synthetic.firstBulletId), `the ${format} export lacks bullet ${synthetic.firstBulletId}`);
      const samples = await measure(() => exportPlaybook(engine.db, input), plan, CALL_TIMEOUT_MS, name);
      const size = `${(Buffer.byteLength(first.content) / 1e6).toFixed(1)} MB`;
      recordSamples(record, `${name} (${size})`, engine.name, samples, { target: TARGETS.export });
    });
  }
};
