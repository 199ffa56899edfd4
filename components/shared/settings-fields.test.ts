import { describe, expect, it } from "vitest";
import { NUMBER_FIELDS, parseField } from "./settings-fields";

describe("parseField", () => {
  it("reads budgets: empty is no limit, separators and a dollar sign are fine", () => {
    expect(parseField(NUMBER_FIELDS.monthlyTokenBudget, "")).toEqual({ value: null });
    expect(parseField(NUMBER_FIELDS.monthlyTokenBudget, "1,000,000")).toEqual({ value: 1_000_000 });
    expect(parseField(NUMBER_FIELDS.monthlyCostBudgetUsd, "$25")).toEqual({ value: 25 });
    expect(parseField(NUMBER_FIELDS.monthlyCostBudgetUsd, "12.345")).toEqual({ value: 12.35 });
  });

  it("says what is wrong with a value out of range", () => {
    expect(parseField(NUMBER_FIELDS.monthlyTokenBudget, "500")).toEqual({ error: "Enter a whole number from 1,000 to 10,000,000,000." });
    expect(parseField(NUMBER_FIELDS.monthlyCostBudgetUsd, "0")).toEqual({ error: "Enter an amount from $0.01 to $1,000,000." });
    expect(parseField(NUMBER_FIELDS.reflectorRounds, "6")).toEqual({ error: "Enter a whole number from 1 to 5." });
    expect(parseField(NUMBER_FIELDS.reflectorRounds, "2.5")).toEqual({ error: "Enter a whole number from 1 to 5." });
    expect(parseField(NUMBER_FIELDS.similarityThreshold, "abc")).toEqual({ error: "Enter a number between 0 and 1." });
  });
});
