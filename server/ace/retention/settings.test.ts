import { describe, expect, it } from "vitest";
import { nextDailyRun, retentionCutoffs, retentionSettingsPatchSchema, retentionSettingsSchema } from "./settings";

describe("retention settings", () => {
  it("default to 30 days of traces, 90 of rejected deltas and 7 of failed runs", () => {
    expect(retentionSettingsSchema.parse({})).toEqual({ traces: 30, rejectedDeltas: 90, failedRuns: 7 });
  });

  it.each([0, -3, 0.5])("refuse %s days with a message that says what to enter", (days) => {
    const result = retentionSettingsPatchSchema.safeParse({ traces: days });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^Retention of traces/);
    expect(result.error?.issues[0]?.path).toEqual(["traces"]);
  });

  it("refuse 0 with the reason and the way out", () => {
    const result = retentionSettingsSchema.safeParse({ failedRuns: 0 });
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      "Retention of failed runs must be at least 1 day: 0 or less would delete them as soon as they arrive. To keep them longer, enter more days.",
    ]);
  });

  it("accept 1 day, the shortest", () => {
    expect(retentionSettingsPatchSchema.parse({ rejectedDeltas: 1 })).toEqual({ rejectedDeltas: 1 });
  });

  it("put each cutoff its days before now", () => {
    const now = new Date("2026-11-27T10:00:00Z");
    expect(retentionCutoffs({ traces: 30, rejectedDeltas: 90, failedRuns: 7 }, now)).toEqual({
      traces: new Date("2026-10-28T10:00:00Z"),
      rejectedDeltas: new Date("2026-08-29T10:00:00Z"),
      failedRuns: new Date("2026-11-20T10:00:00Z"),
    });
  });
});

describe("the next daily run", () => {
  it("is today when the hour is still ahead, else tomorrow", () => {
    expect(nextDailyRun(new Date("2026-11-27T02:59:59Z"), 3)).toEqual(new Date("2026-11-27T03:00:00Z"));
    expect(nextDailyRun(new Date("2026-11-27T03:00:00Z"), 3)).toEqual(new Date("2026-11-28T03:00:00Z"));
    expect(nextDailyRun(new Date("2026-12-31T23:00:00Z"), 3)).toEqual(new Date("2027-01-01T03:00:00Z"));
  });
});
