import { describe, expect, it } from "vitest";
import {
  DEFAULT_SECTIONS,
  extractBulletIds,
  formatBulletId,
  highestIdNumber,
  isValidBulletId,
  mostCommonIdPrefix,
  parseBulletId,
  slugForSection,
} from "./ids";

describe("formatBulletId", () => {
  it("pads the number to five digits and never cuts a longer one", () => {
    expect(formatBulletId("str", 1)).toBe("str-00001");
    expect(formatBulletId("customer_service_closure", 6)).toBe("customer_service_closure-00006");
    expect(formatBulletId("str", 123456)).toBe("str-123456");
  });
});

describe("parseBulletId", () => {
  it("splits an id into its prefix and number", () => {
    expect(parseBulletId("str-00001")).toEqual({ prefix: "str", number: 1 });
    expect(parseBulletId("misc-00318")).toEqual({ prefix: "misc", number: 318 });
    expect(parseBulletId("customer_service_structure-00001")).toEqual({ prefix: "customer_service_structure", number: 1 });
  });

  it("keeps hyphens that belong to the prefix", () => {
    expect(parseBulletId("edge-case-00012")).toEqual({ prefix: "edge-case", number: 12 });
  });

  it("returns null for ids without a prefix or a numeric suffix", () => {
    for (const id of ["str", "str-", "-00001", "str-00a01", "str 1-00001", "skill_abc123", ""]) {
      expect(parseBulletId(id)).toBeNull();
    }
  });
});

describe("highestIdNumber", () => {
  it("finds the highest numeric suffix across prefixes, ignoring unnumbered ids", () => {
    expect(highestIdNumber(["str-00002", "cal-00011", "custom", "mis-00007"])).toBe(11);
  });

  it("is 0 when no id is numbered", () => {
    expect(highestIdNumber([])).toBe(0);
    expect(highestIdNumber(["custom"])).toBe(0);
  });
});

describe("isValidBulletId", () => {
  it("accepts ids without whitespace or a closing bracket", () => {
    expect(isValidBulletId("str-00001")).toBe(true);
    expect(isValidBulletId("a[b")).toBe(true);
    for (const id of ["", "a b", "a]b", "a\tb"]) expect(isValidBulletId(id)).toBe(false);
  });
});

describe("DEFAULT_SECTIONS", () => {
  it("lists the LangChain ACE middleware's seven sections and slugs in order", () => {
    expect(DEFAULT_SECTIONS.map((s) => `${s.name}/${s.slug}`)).toEqual([
      "strategies_and_insights/str",
      "formulas_and_calculations/cal",
      "code_snippets_and_templates/cod",
      "common_mistakes_to_avoid/mis",
      "problem_solving_heuristics/heu",
      "context_clues_and_indicators/ctx",
      "others/oth",
    ]);
  });
});

describe("slugForSection", () => {
  it("uses the prefix most of the section's bullets already have, the first seen on a tie", () => {
    expect(slugForSection("OTHERS", ["misc-00003", "oth-00009", "misc-00008"])).toBe("misc");
    expect(slugForSection("OTHERS", ["b-00001", "a-00002"])).toBe("b");
    expect(mostCommonIdPrefix(["x", "y"])).toBeNull();
  });

  it("uses the middleware's slug for a default section name, whatever its case, spaces or underscores", () => {
    expect(slugForSection("strategies_and_insights")).toBe("str");
    expect(slugForSection("Common Mistakes To Avoid")).toBe("mis");
    expect(slugForSection("CONTEXT_CLUES AND_INDICATORS")).toBe("ctx");
    expect(slugForSection("others", ["unnumbered"])).toBe("oth");
  });

  it("otherwise takes the first three letters or digits of the name, lowercased", () => {
    expect(slugForSection("APIs TO USE FOR SPECIFIC INFORMATION")).toBe("api");
    expect(slugForSection("9 Lives")).toBe("9li");
    expect(slugForSection("—")).toBe("sec");
    expect(slugForSection("日本語")).toBe("sec");
  });
});

describe("extractBulletIds", () => {
  it("finds bracketed ids in free text, de-duplicated in order of first appearance", () => {
    const text = "Using [cal-00001] and [str-00002], then [cal-00001] again; see [misc-00318] and [customer_service_closure-00006].";
    expect(extractBulletIds(text)).toEqual(["cal-00001", "str-00002", "misc-00318", "customer_service_closure-00006"]);
  });

  it("reads the ids of the middleware's bullet_ids comment in their place in the text", () => {
    const text = 'Applied [heu-00004].\n<!-- bullet_ids: ["str-00001", "mis-00002", "heu-00004"] -->\nLater [cod-00009].';
    expect(extractBulletIds(text)).toEqual(["heu-00004", "str-00001", "mis-00002", "cod-00009"]);
    expect(extractBulletIds("<!--bullet_ids:['a-00001','b-00002']-->")).toEqual(["a-00001", "b-00002"]);
  });

  it("ignores bracketed text that is not an ACE id", () => {
    expect(extractBulletIds("[step-1] [TODO] [str 00001] [str-0001] plain str-00001")).toEqual([]);
  });
});
