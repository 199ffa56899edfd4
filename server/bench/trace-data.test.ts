import { describe, expect, it } from "vitest";
import { parseTraceBody } from "@/server/traces/schemas";
import { citedIdsOf } from "@/server/traces/service";
import { bulletIdsOf, CITED_BULLETS, REASONING_CHARS, traceSource } from "./trace-data";
import { syntheticPlaybook } from "./synthetic";

describe("traceSource", () => {
  const bulletIds = bulletIdsOf(syntheticPlaybook({ bullets: 300 }).text);
  const make = (seed?: number) => traceSource({ playbook: "bench", bulletIds, idPrefix: "run-1", seed }).next(300);
  const traces = make();

  it("reads the bullet ids of ACE text", () => {
    expect(bulletIds).toHaveLength(300);
    expect(bulletIds.every((id) => /^[a-z]{3}-\d{5}$/.test(id))).toBe(true);
  });

  it("gives the same traces for the same seed, and other traces for another", () => {
    expect(make()).toEqual(traces);
    expect(make(7)[0]?.reasoning).not.toBe(traces[0]?.reasoning);
  });

  it("writes traces the HTTP route accepts, with external ids unique per source", () => {
    const parsed = parseTraceBody({ traces });
    expect(parsed).toHaveLength(300);
    expect(new Set(parsed.map((trace) => trace.externalId)).size).toBe(300);
    expect(new Set(parsed.map((trace) => trace.outcome))).toEqual(new Set(["success", "failure", "unknown"]));
  });

  it("cites 2 to 5 bullets of the playbook in 1 to 2 KB of reasoning", () => {
    for (const trace of parseTraceBody({ traces })) {
      const cited = citedIdsOf(trace);
      expect(cited.length).toBeGreaterThanOrEqual(CITED_BULLETS.min);
      expect(cited.length).toBeLessThanOrEqual(CITED_BULLETS.max);
      expect(cited.every((id) => bulletIds.includes(id))).toBe(true);
      expect(trace.reasoning?.length).toBeGreaterThanOrEqual(REASONING_CHARS.min - 100);
      expect(trace.reasoning?.length).toBeLessThanOrEqual(REASONING_CHARS.max + 400);
    }
  });
});
