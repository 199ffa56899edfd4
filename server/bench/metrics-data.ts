// The traces of the metrics benchmarks, as columns for bulk insertion: spread evenly over a range,
// each run with the playbook version current at its time, a success rate that climbs as the
// playbook learns, usage and cost, and an A/B label on part of the last month. Seeded.
import { seededRandom } from "./synthetic";
import { emptyTraceColumns, type TraceColumns } from "./repository";

export interface VersionTime {
  number: number;
  createdAt: Date;
}

/** Per million tokens, as a price table would say. */
const PRICE = { input: 2, output: 8 };

export function metricsTraceColumns({
  count,
  from,
  to,
  versions,
  bulletIds,
  seed = 0x3e7,
}: {
  count: number;
  from: Date;
  to: Date;
  /** In increasing time; the first is at or before `from`. */
  versions: readonly VersionTime[];
  bulletIds: readonly string[];
  seed?: number;
}): TraceColumns {
  if (versions.length === 0 || (versions[0] as VersionTime).createdAt > from) throw new Error("A version must exist at the range's start.");
  if (bulletIds.length < 2) throw new Error("Traces cite two bullets; the playbook has fewer.");
  const random = seededRandom(seed);
  const span = to.getTime() - from.getTime();
  const experimentFrom = to.getTime() - 30 * 86_400_000;
  const columns = emptyTraceColumns();
  let current = 0;
  for (let i = 0; i < count; i++) {
    const ms = from.getTime() + Math.floor(((i + random()) / count) * span);
    while (current + 1 < versions.length && (versions[current + 1] as VersionTime).createdAt.getTime() <= ms) current++;
    const labelled = ms >= experimentFrom && random() < 0.3;
    const variant = labelled ? (random() < 0.5 ? "A" : "B") : null;
    const successRate = 0.55 + 0.2 * ((ms - from.getTime()) / span) + (variant === "B" ? 0.05 : 0);
    const roll = random();
    const outcome = roll < 0.05 ? "unknown" : random() < successRate ? "success" : "failure";
    const input = 4_000 + Math.floor(random() * 16_000);
    const output = 300 + Math.floor(random() * 1_700);
    columns.timestampMs.push(ms);
    columns.outcome.push(outcome);
    columns.playbookVersion.push((versions[current] as VersionTime).number);
    // Mostly 5–60 s, with a long tail.
    columns.durationMs.push(Math.floor(5_000 + 55_000 * random() ** 2 + (random() < 0.05 ? 120_000 * random() : 0)));
    columns.inputTokens.push(input);
    columns.outputTokens.push(output);
    columns.costUsd.push((input * PRICE.input + output * PRICE.output) / 1e6);
    const first = Math.floor(random() * bulletIds.length);
    const second = (first + 1 + Math.floor(random() * (bulletIds.length - 1))) % bulletIds.length;
    columns.cited.push([bulletIds[first] as string, bulletIds[second] as string]);
    columns.experiment.push(labelled ? "tone" : null);
    columns.variant.push(variant);
  }
  return columns;
}
