// Shared by the integration tests: a small playbook and the assertion for typed errors.
import { TRPCError } from "@trpc/server";
import { expect } from "vitest";

/** Four bullets in two sections, with counters; version 1 after the import. */
export const SMALL_PLAYBOOK = [
  "## strategies_and_insights",
  "[str-00001] helpful=3 harmful=0 :: Always verify data types before processing numeric fields.",
  "[str-00002] helpful=1 harmful=4 :: Retry failed API calls immediately without any backoff.",
  "[str-00003] helpful=0 harmful=0 :: Paginate through every page of results before answering.",
  "## common_mistakes_to_avoid",
  "[mis-00004] helpful=2 harmful=0 :: Don't forget timezone conversions when comparing dates.",
  "",
].join("\n");

/** An experiment "tone" on the playbook "support": control A and curated B, half each (experiments.create's input). */
export const twoVariants = (extra: Record<string, unknown> = {}) => ({
  key: "tone",
  name: "Tone",
  playbook: "support",
  hypothesis: "The curated playbook helps.",
  variants: [
    { key: "A", name: "Control", weight: 0.5 },
    { key: "B", name: "Curated", weight: 0.5 },
  ],
  ...extra,
});

/** The promise fails with a tRPC error of this code whose message a person can act on. */
export function expectAppError(promise: Promise<unknown>, code: TRPCError["code"], message: RegExp) {
  return expect(promise).rejects.toSatisfy((error: unknown) => {
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe(code);
    expect((error as TRPCError).message).toMatch(message);
    return true;
  });
}
