import { describe, expect, it } from "vitest";
import { backoffDelay } from "./backoff";

describe("backoffDelay", () => {
  const middle = () => 0.5;

  it("doubles from 2 s with every attempt", () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, {}, middle))).toEqual([2_000, 4_000, 8_000, 16_000]);
  });

  it("spreads the delay by at most ±20 %", () => {
    expect(backoffDelay(3, {}, () => 0)).toBe(6_400);
    expect(backoffDelay(3, {}, () => 0.999_999)).toBe(9_600);
  });

  it("never waits longer than 10 minutes, even with jitter or huge attempt counts", () => {
    expect(backoffDelay(10, {}, middle)).toBe(600_000);
    expect(backoffDelay(10, {}, () => 0.999_999)).toBe(600_000);
    expect(backoffDelay(10_000, {}, middle)).toBe(600_000);
    expect(backoffDelay(10, {}, () => 0)).toBe(480_000);
  });

  it("takes a smaller base and cap, as tests do", () => {
    expect(backoffDelay(1, { baseMs: 10, jitter: 0 })).toBe(10);
    expect(backoffDelay(4, { baseMs: 10, maxMs: 50, jitter: 0 })).toBe(50);
  });

  it("treats attempt 0 like the first attempt", () => {
    expect(backoffDelay(0, {}, middle)).toBe(2_000);
  });

  it("serves the LLM retries with their own base, cap and spread (1 s doubling to 30 s, ±25 %)", () => {
    const llm = { baseMs: 1_000, maxMs: 30_000, jitter: 0.25 };
    expect([1, 2, 3].map((n) => backoffDelay(n, llm, middle))).toEqual([1_000, 2_000, 4_000]);
    expect(backoffDelay(2, llm, () => 0)).toBe(1_500);
    expect(backoffDelay(2, llm, () => 0.999_999)).toBe(2_500);
    expect(backoffDelay(6, llm, () => 0.999_999)).toBe(30_000);
  });
});
