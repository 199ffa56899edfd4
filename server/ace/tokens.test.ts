import { describe, expect, it } from "vitest";
import {
  TOKEN_ENCODING,
  adoptStateTokens,
  changesCountedText,
  compiledBulletText,
  countBulletTokens,
  countTokens,
  hasStateTokens,
  stateTokens,
} from "./tokens";

describe("countTokens", () => {
  // The first call builds the encoder from its ranks, which takes a few seconds on a busy machine.
  it("counts with the o200k_base tokenizer", { timeout: 30_000 }, () => {
    expect(TOKEN_ENCODING).toBe("o200k_base");
    // Verified against tiktoken's o200k_base: "Hello" "," " world" "!".
    expect(countTokens("Hello, world!")).toBe(4);
    expect(countTokens("The quick brown fox jumps over the lazy dog.")).toBe(10);
  });

  it("is 0 for empty text", () => {
    expect(countTokens("")).toBe(0);
  });

  it("counts special-token text as ordinary text instead of throwing", () => {
    expect(countTokens("<|endoftext|>")).toBe(7);
  });

  it("grows with the text", () => {
    const bullet = "[str-00001] helpful=5 harmful=0 :: Always verify data types before processing\n";
    expect(countTokens(bullet.repeat(10))).toBeGreaterThan(countTokens(bullet) * 9);
  });
});

describe("stateTokens", () => {
  const bullet = () => ({
    externalId: "str-00001",
    content: "Always verify data types before processing.",
    helpful: 5,
    harmful: 0,
    countersKnown: true,
  });

  it("is the bullet's compiled line count, kept with the object", () => {
    const state = bullet();
    expect(hasStateTokens(state)).toBe(false);
    expect(stateTokens(state)).toBe(countBulletTokens(state));
    expect(hasStateTokens(state)).toBe(true);
    // Another object with the same fields is counted on its own: the count belongs to the object.
    expect(hasStateTokens(bullet())).toBe(false);
  });

  it("reads a count adopted for the object rather than tokenizing it", () => {
    const state = bullet();
    adoptStateTokens(state, 123);
    expect(stateTokens(state)).toBe(123);
  });

  it("is another count only when what the line writes changes: the id, the content or a counter it shows", () => {
    const state = bullet();
    expect(changesCountedText(state, { ...state })).toBe(false);
    // What the line does not write: the neutral counter, the status, the place.
    expect(changesCountedText(state, { ...state, neutral: 3, status: "archived", position: 7 } as typeof state)).toBe(false);
    expect(changesCountedText(state, { ...state, countersKnown: false })).toBe(true);
    for (const [field, value] of [
      ["externalId", "str-00002"],
      ["content", "Verify data types."],
      ["helpful", 6],
      ["harmful", 1],
    ] as const) {
      const changed = { ...state, [field]: value };
      expect(changesCountedText(state, changed), field).toBe(true);
      expect(compiledBulletText(changed), field).not.toBe(compiledBulletText(state));
    }
  });
});
