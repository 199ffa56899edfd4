import { describe, expect, it } from "vitest";
import { overviewInput, playbookMetricsInput } from "@/server/metrics/schemas";
import { OVERVIEW_PRESETS, overviewRange } from "./overview-url";
import { evolutionQuery } from "./query";
import { BUCKETS, customRange, DEFAULT_EVOLUTION_FILTERS, RANGE_PRESETS } from "./range";

const PLAYBOOK = "0f8fad5b-d9cb-469f-a165-70867728950e";
const NOW = Date.parse("2026-11-20T10:17:00Z");

describe("the queries the charts send", () => {
  it("are accepted by the metrics contract for every preset and bucket", () => {
    for (const preset of RANGE_PRESETS) {
      for (const bucket of [null, ...BUCKETS]) {
        const { input, range } = evolutionQuery(
          PLAYBOOK,
          { ...DEFAULT_EVOLUTION_FILTERS, preset, bucket },
          NOW,
          Date.parse("2021-03-04T05:06:07Z"),
        );
        const parsed = playbookMetricsInput.parse(input);
        expect(parsed.bucket).toBe(range.bucket);
        expect(range.points).toBeLessThanOrEqual(500);
      }
    }
    for (const preset of OVERVIEW_PRESETS) expect(() => overviewInput.parse(overviewRange(preset, NOW).input)).not.toThrow();
  });

  it("carry the variant and the version toggle", () => {
    const { input } = evolutionQuery(PLAYBOOK, { ...DEFAULT_EVOLUTION_FILTERS, variant: " B ", allVersions: true }, NOW, null);
    expect(input).toMatchObject({ variant: "B", contentOnly: false });
    expect(evolutionQuery(PLAYBOOK, DEFAULT_EVOLUTION_FILTERS, NOW, null).input).not.toHaveProperty("variant");
  });

  it("send a zoomed range as it is, its start truncated to the bucket", () => {
    const filters = customRange(DEFAULT_EVOLUTION_FILTERS, Date.parse("2026-11-03T00:00:00Z"), Date.parse("2026-11-06T00:00:00Z"));
    const { input } = evolutionQuery(PLAYBOOK, filters, NOW, null);
    expect(input.bucket).toBe("hour");
    expect(input.from?.toISOString()).toBe("2026-11-03T00:00:00.000Z");
    expect(input.to?.toISOString()).toBe("2026-11-06T00:00:00.000Z");
  });
});
