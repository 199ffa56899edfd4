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

interface ResultBase {
  benchmark: string;
  engine: string;
  note?: string;
}

export type BenchResult =
  | (ResultBase & { kind: "measured"; summary: Summary; target?: Target })
  | (ResultBase & { kind: "skipped"; reason: string })
  | (ResultBase & { kind: "error"; message: string });

export interface Machine {
  cpu: string;
  cores: number;
  memory: string;
  node: string;
  os: string;
  load: string;
}

/** 1, 5 and 15 minute load averages: above the core count, other work competed for the CPU. */
export function loadAverage(): string {
  return os.loadavg().map((value) => value.toFixed(2)).join(" / ");
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

export function describeMachine(): Machine {
  return {
    cpu: cpuModel(),
    cores: os.availableParallelism(),
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    os: osName(),
    load: loadAverage(),
  };
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1_000) return `${(ms / 1000).toFixed(2)} s`;
  if (Number.isInteger(ms)) return `${ms} ms`;
  if (ms >= 100) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(1)} ms`;
}

function targetText(target: Target | undefined): string {
  if (!target) return "—";
  return `p95 ≤ ${formatMs(target.maxMs)}${target.aim ? ` (${target.aim})` : ""}`;
}

export function verdict(result: BenchResult): "PASS" | "MISS" | "—" | "SKIPPED" | "ERROR" {
  if (result.kind === "skipped") return "SKIPPED";
  if (result.kind === "error") return "ERROR";
  if (!result.target) return "—";
  return result.summary.p95 <= result.target.maxMs ? "PASS" : "MISS";
}

const escapeCell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function resultsTable(results: readonly BenchResult[]): string {
  const header = ["Benchmark", "Engine", "Runs", "p50", "p95", "Max", "Target", "Result"];
  const rows = results.map((result) => {
    const figures =
      result.kind === "measured"
        ? [String(result.summary.runs), formatMs(result.summary.p50), formatMs(result.summary.p95), formatMs(result.summary.max)]
        : ["—", "—", "—", "—"];
    const target = result.kind === "measured" ? targetText(result.target) : "—";
    return [result.benchmark, result.engine, ...figures, target, verdict(result)];
  });
  const lines = [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.map(escapeCell).join(" | ")} |`);
  return lines.join("\n");
}

export interface Report {
  startedAt: Date;
  durationMs: number;
  machine: Machine;
  loadAtEnd: string;
  mode: string;
  engines: string[];
  results: BenchResult[];
  /** Lines for the Notes section: what was measured and how, and what stood out. */
  notes: string[];
}

export function renderReport(report: Report): string {
  const { machine } = report;
  const remarks = report.results
    .filter((result) => result.kind !== "measured" || result.note)
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
