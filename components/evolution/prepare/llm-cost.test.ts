import { describe, expect, it } from "vitest";
import { llmRows, llmTable, llmTotalsTable } from "./llm-cost";
import { DAYS, llmUsage, result } from "./test-fixtures";

describe("LLM cost", () => {
  it("sum tokens and cost per bucket and role, the agents' own usage included", () => {
    const agent = { runs: 40, inputTokens: 60000, outputTokens: 7000, costUsd: 0.044, p50LatencyMs: 1200, p95LatencyMs: 2000 };
    const llm = {
      buckets: [
        { start: DAYS[0]!, ...llmUsage("reflector", { runs: 4, failed: 1, inputTokens: 1000, outputTokens: 200, costUsd: 0.01 }) },
        { start: DAYS[0]!, ...llmUsage("agent", agent) },
      ],
      byRole: [llmUsage("agent", { ...agent, uncosted: 2 })],
    };
    const rows = llmRows(result({ llm }));
    expect(rows).toHaveLength(3);
    expect(rows[0]!.tokens).toEqual({ reflector: 1200, curator: 0, agent: 67000 });
    expect(rows[0]!.costUsd.agent).toBe(0.044);
    expect(llmTable(rows, "LLM").rows[0]).toMatchObject({ "agent:runs": 40, "agent:tokens": 67000, "reflector:cost": 0.01 });
    const totals = llmTotalsTable(result({ llm }), "LLM totals").rows;
    expect(totals.map((row) => row.role)).toEqual(["Reflector", "Curator", "Agent"]);
    expect(totals[2]).toMatchObject({ runs: 40, failed: null, uncosted: 2 });
    expect(totals[0]).toMatchObject({ runs: 0, costUsd: 0 });
  });
});
