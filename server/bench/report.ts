// What a benchmark run found, and the Markdown that BENCHMARKS.md and stdout show of it.
import { readFileSync } from "node:fs";
import os from "node:os";
import type { Summary } from "./stats";

/** A target is met when the p95 of the timed runs is at or below it. */
export interface Target {
  maxMs: number;
  /** Shown after the limit, e.g. "aim 25 ms". */
  aim?: string;
}

/** Met when the throughput (total items / total timed time) is at or above it. */
export interface RateTarget {
  minPerSecond: number;
}

/** Met when the p95 of the token counts is at or below it. */
export interface TokenTarget {
  maxTokens: number;
}

/** Items per second over all timed runs, shown beside a result's latency. */
export interface Throughput {
  perSecond: number;
  /** e.g. "traces/s". */
  unit: string;
  target?: RateTarget;
}

/** A further condition of a result's target that is not a time or a rate, e.g. "304s ≥ 90 %". */
export interface ExtraCheck {
  text: string;
  met: boolean;
}

interface ResultBase {
  benchmark: string;
  engine: string;
  note?: string;
}

export type BenchResult =
  | (ResultBase & { kind: "measured"; summary: Summary; target?: Target; throughput?: Throughput; extra?: ExtraCheck[] })
  /** Counts of tokens, not times: the summary's p50, p95 and max are token counts. */
  | (ResultBase & { kind: "tokens"; summary: Summary; target?: TokenTarget })
  | (ResultBase & { kind: "skipped"; reason: string })
  | (ResultBase & { kind: "error"; message: string });

export interface Machine {
  cpu: string;
  cores: number;
  memory: string;
  node: string;
  os: string;
  load: string;
  /** cpuCheckMs() and memoryCheckMs() when the run started. */
  cpuCheck: number;
  memoryCheck: number;
}

/** 1, 5 and 15 minute load averages: above the core count, other work competed for the CPU. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(" / ");
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match?.[1]) return match[1].trim();
  } catch {
    // not Linux: fall back to what Node reports
  }
  return os.cpus()[0]?.model ?? "unknown";
}

function osName(): string {
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1];
    if (pretty) return `${pretty} (${os.type()} ${os.release()}, ${os.arch()})`;
  } catch {
    // no os-release
  }
  return `${os.type()} ${os.release()} (${os.arch()})`;
}

/** Steps of cpuCheckMs's loop: a few hundred milliseconds on this project's 2-core machines. */
const CPU_CHECK_STEPS = 200_000_000;
/** Where the checks' loops leave their result, so the compiler cannot drop them as unused. */
let checkSink = 0;

/**
 * The median of three timings of the same integer loop: the same work in every run, so a higher
 * figure means a slower or busier machine (these are shared virtual machines, which report no steal
 * time). Compare it before comparing two runs' figures.
 */
export function cpuCheckMs(): number {
  const timings = [0, 1, 2].map(() => {
    const started = performance.now();
    let x = checkSink | 1;
    for (let i = 0; i < CPU_CHECK_STEPS; i += 1) x = (Math.imul(x, 1_103_515_245) + 12_345) | 0;
    checkSink = x;
    return performance.now() - started;
  });
  return timings.sort((a, b) => a - b)[1] as number;
}

/** Entries of memoryCheckMs's cycle: 64 MB, past the processor's caches. */
const MEMORY_CHECK_ENTRIES = 1 << 24;
const MEMORY_CHECK_STEPS = 2_000_000;

/**
 * Milliseconds for a chain of dependent reads at random places in 64 MB: how long the machine takes
 * to reach its memory. Other guests contend for memory and caches, not only for cores, which the
 * integer loop of cpuCheckMs does not show: it read 240-270 ms on 2026-11-29 in runs 1.5-2 times
 * slower than the committed ones, while this read 375 ms (190 ns a read).
 */
export function memoryCheckMs(): number {
  const next = new Int32Array(MEMORY_CHECK_ENTRIES);
  for (let i = 0; i < next.length; i += 1) next[i] = i;
  // Sattolo's shuffle, seeded: one cycle through every entry, the same in every run.
  let seed = 0x5eed;
  for (let i = next.length - 1; i > 0; i -= 1) {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    const j = Math.floor((seed / 2 ** 32) * i);
    const held = next[i] as number;
    next[i] = next[j] as number;
    next[j] = held;
  }
  const started = performance.now();
  let at = 0;
  for (let i = 0; i < MEMORY_CHECK_STEPS; i += 1) at = next[at] as number;
  checkSink = at;
  return performance.now() - started;
}

export function describeMachine(): Machine {
  return {
    cpu: cpuModel(),
    cores: os.availableParallelism(),
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    os: osName(),
    load: loadAverage(),
    cpuCheck: cpuCheckMs(),
    memoryCheck: memoryCheckMs(),
  };
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1_000) return `${(ms / 1000).toFixed(2)} s`;
  if (Number.isInteger(ms)) return `${ms} ms`;
  if (ms >= 100) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(1)} ms`;
}

export function formatTokens(tokens: number): string {
  return `${Math.round(tokens).toLocaleString("en")} tok`;
}

export function formatRate(throughput: Throughput): string {
  return `${Math.round(throughput.perSecond).toLocaleString("en")} ${throughput.unit}`;
}

/** A p50 / p95 / max figure in its result's unit: tokens for token counts, else time. */
export function formatFigure(kind: BenchResult["kind"], value: number): string {
  return kind === "tokens" ? formatTokens(value) : formatMs(value);
}

function targetText(result: BenchResult): string {
  if (result.kind === "tokens") return result.target ? `p95 ≤ ${result.target.maxTokens.toLocaleString("en")} tokens` : "—";
  if (result.kind !== "measured") return "—";
  const { target, throughput } = result;
  const parts: string[] = [];
  if (target) parts.push(`p95 ≤ ${formatMs(target.maxMs)}${target.aim ? ` (${target.aim})` : ""}`);
  if (throughput?.target) parts.push(`≥ ${throughput.target.minPerSecond.toLocaleString("en")} ${throughput.unit}`);
  for (const check of result.extra ?? []) parts.push(check.text);
  return parts.length ? parts.join(", ") : "—";
}

export function verdict(result: BenchResult): "PASS" | "MISS" | "—" | "SKIPPED" | "ERROR" {
  if (result.kind === "skipped") return "SKIPPED";
  if (result.kind === "error") return "ERROR";
  if (result.kind === "tokens") {
    if (!result.target) return "—";
    return result.summary.p95 <= result.target.maxTokens ? "PASS" : "MISS";
  }
  const checks: boolean[] = [];
  if (result.target) checks.push(result.summary.p95 <= result.target.maxMs);
  if (result.throughput?.target) checks.push(result.throughput.perSecond >= result.throughput.target.minPerSecond);
  for (const check of result.extra ?? []) checks.push(check.met);
  if (checks.length === 0) return "—";
  return checks.every(Boolean) ? "PASS" : "MISS";
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function resultsTable(results: readonly BenchResult[]): string {
  // The throughput column only when some result has one, so reports without it read as before.
  const withRate = results.some((result) => result.kind === "measured" && result.throughput);
  const header = ["Benchmark", "Engine", "Runs", "p50", "p95", "Max", ...(withRate ? ["Throughput"] : []), "Target", "Result"];
  const rows = results.map((result) => {
    const figures =
      result.kind === "measured" || result.kind === "tokens"
        ? [
            String(result.summary.runs),
            formatFigure(result.kind, result.summary.p50),
            formatFigure(result.kind, result.summary.p95),
            formatFigure(result.kind, result.summary.max),
          ]
        : ["—", "—", "—", "—"];
    const rate = result.kind === "measured" && result.throughput ? formatRate(result.throughput) : "—";
    return [result.benchmark, result.engine, ...figures, ...(withRate ? [rate] : []), targetText(result), verdict(result)];
  });
  const lines = [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.map(escapeCell).join(" | ")} |`);
  return lines.join("\n");
}

export interface Report {
  startedAt: Date;
  durationMs: number;
  machine: Machine;
  loadAtEnd: string;
  cpuCheckAtEnd: number;
  memoryCheckAtEnd: number;
  mode: string;
  engines: string[];
  results: BenchResult[];
  /** Lines for the Notes section: what was measured and how, and what stood out. */
  notes: string[];
}

export function renderReport(report: Report): string {
  const { machine } = report;
  const remarks = report.results
    .filter((result) => result.kind === "skipped" || result.kind === "error" || result.note)
    .map((result) => {
      const text = result.kind === "skipped" ? result.reason : result.kind === "error" ? result.message : (result.note ?? "");
      return `- **${result.benchmark}** (${result.engine}, ${verdict(result).toLowerCase()}): ${text}`;
    });
  return [
    "# ACE Studio benchmarks",
    "",
    "Written by `npm run bench`; rerun it rather than editing this file.",
    "",
    `- Date: ${report.startedAt.toISOString()} (took ${formatMs(report.durationMs)})`,
    `- Mode: ${report.mode}`,
    `- CPU: ${machine.cpu}, ${machine.cores} cores`,
    `- Memory: ${machine.memory}`,
    `- Node: ${machine.node}`,
    `- OS: ${machine.os}`,
    `- Load average (1 / 5 / 15 min): ${machine.load} at the start, ${report.loadAtEnd} at the end`,
    `- CPU check (one integer loop of ${CPU_CHECK_STEPS.toLocaleString("en")} steps, the same every run; higher is a slower or ` +
      `busier machine): ${formatMs(machine.cpuCheck)} at the start, ${formatMs(report.cpuCheckAtEnd)} at the end`,
    `- Memory check (${MEMORY_CHECK_STEPS.toLocaleString("en")} dependent reads at random places in 64 MB; higher is memory ` +
      `shared with busier neighbours): ${formatMs(machine.memoryCheck)} at the start, ${formatMs(report.memoryCheckAtEnd)} at the end`,
    `- Engines: ${report.engines.join("; ")}`,
    "",
    "## Results",
    "",
    resultsTable(report.results),
    "",
    ...(remarks.length ? ["## Notes per benchmark", "", ...remarks, ""] : []),
    "## How these were measured",
    "",
    ...report.notes.map((note) => `- ${note}`),
    "",
  ].join("\n");
}
