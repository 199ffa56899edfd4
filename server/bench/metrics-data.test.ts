import { describe, expect, it } from "vitest";
import { metricsTraceColumns } from "./metrics-data";

const DAY = 86_400_000;
const from = new Date("2026-03-01T00:00:00Z");
const to = new Date(from.getTime() + 90 * DAY);
const versions = [
  { number: 1, createdAt: new Date(from.getTime() - DAY) },
  { number: 2, createdAt: new Date(from.getTime() + 10 * DAY) },
  { number: 3, createdAt: new Date(from.getTime() + 50 * DAY) },
];
const bulletIds = ["str-00001", "str-00002", "mis-00003"];
const make = (seed?: number) => metricsTraceColumns({ count: 9_000, from, to, versions, bulletIds, ...(seed ? { seed } : {}) });

describe("metricsTraceColumns", () => {
  const columns = make();

  it("gives the same columns for the same seed, and others for another", () => {
    expect(make()).toEqual(columns);
    expect(make(7).timestampMs).not.toEqual(columns.timestampMs);
  });

  it("spreads the traces evenly over the range, in time order, each with the version current at its time", () => {
    const times = columns.timestampMs;
    expect(times).toHaveLength(9_000);
    expect(times.every((time, i) => time >= from.getTime() && time < to.getTime() && (i === 0 || time >= (times[i - 1] as number)))).toBe(
      true,
    );
    const perDay = new Map<number, number>();
    for (const time of times)
      perDay.set(Math.floor((time - from.getTime()) / DAY), (perDay.get(Math.floor((time - from.getTime()) / DAY)) ?? 0) + 1);
    expect(perDay.size).toBe(90);
    expect(Math.min(...perDay.values())).toBeGreaterThan(80);
    times.forEach((time, i) => {
      const current = versions.filter((v) => v.createdAt.getTime() <= time).at(-1)?.number;
      expect(columns.playbookVersion[i]).toBe(current);
    });
  });

  it("succeeds more often as time goes on, and labels variants only in the last 30 days", () => {
    const rate = (part: number[]) => part.filter((i) => columns.outcome[i] === "success").length / part.length;
    const indexes = columns.timestampMs.map((_, i) => i);
    expect(rate(indexes.slice(6_000))).toBeGreaterThan(rate(indexes.slice(0, 3_000)) + 0.1);
    const labelled = indexes.filter((i) => columns.variant?.[i] !== null);
    expect(labelled.length / 3_000).toBeGreaterThan(0.25);
    expect(labelled.every((i) => (columns.timestampMs[i] as number) >= to.getTime() - 30 * DAY && columns.experiment?.[i] === "tone")).toBe(
      true,
    );
  });

  it("cites two different bullets of the playbook and prices the usage", () => {
    expect(columns.cited?.every(([a, b]) => a !== b && bulletIds.includes(a) && bulletIds.includes(b))).toBe(true);
    columns.costUsd.forEach((cost, i) => {
      expect(cost).toBeCloseTo(((columns.inputTokens[i] as number) * 2 + (columns.outputTokens[i] as number) * 8) / 1e6, 12);
    });
  });
});
