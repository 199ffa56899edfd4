// How the statistics tests compare a figure with its SciPy reference value (server/ace/stats/reference,
// server/experiments/reference): 1e-9 relative, with an absolute floor of 1e-14 for values at or near
// 0 (a bound of exactly 0, a p-value of 1e-20 that 1 − CDF reports as 0).
import { expect } from "vitest";

const RELATIVE = 1e-9;
const ABSOLUTE = 1e-14;

export function expectClose(actual: number | null | undefined, expected: number, what: string): void {
  expect(actual, what).toBeTypeOf("number");
  const error = Math.abs((actual as number) - expected);
  const allowed = Math.max(RELATIVE * Math.abs(expected), ABSOLUTE);
  expect(error <= allowed, `${what}: got ${actual}, SciPy reference ${expected} (|Δ| = ${error})`).toBe(true);
}

/** Both ends of an interval, each within the tolerance. */
export function expectPairClose(actual: readonly number[] | null | undefined, expected: readonly number[], what: string): void {
  expect(actual, what).not.toBeNull();
  expectClose(actual?.[0], expected[0] as number, `${what} lower`);
  expectClose(actual?.[1], expected[1] as number, `${what} upper`);
}
