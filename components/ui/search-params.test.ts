import { describe, expect, it } from "vitest";
import { isUuid, oneOf, toSearchParams } from "./search-params";

describe("search params", () => {
  it("accepts only UUIDs as ids", () => {
    expect(isUuid("0b9e5a4c-3f1d-4c8e-9a7b-1d2e3f4a5b6c")).toBe(true);
    expect(isUuid("0B9E5A4C-3F1D-4C8E-9A7B-1D2E3F4A5B6C")).toBe(true);
    expect(isUuid("0b9e5a4c-3f1d-4c8e-9a7b-1d2e3f4a5b6")).toBe(false);
    expect(isUuid("' or 1=1")).toBe(false);
    expect(isUuid(null)).toBe(false);
  });

  it("keeps a value only if it is one of the allowed ones", () => {
    const roles = ["reflector", "curator"] as const;
    expect(oneOf("curator", roles)).toBe("curator");
    expect(oneOf("Curator", roles)).toBeNull();
    expect(oneOf(null, roles)).toBeNull();
  });

  it("turns the record Next hands a page into URLSearchParams, first value of a repeated key", () => {
    const params = toSearchParams({ q: "retry", status: ["failed", "queued"], empty: [], missing: undefined });
    expect(params.toString()).toBe("q=retry&status=failed");
  });
});
