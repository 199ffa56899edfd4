import { describe, expect, it } from "vitest";
import { TOKEN_ENCODING, countTokens } from "./tokens";

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
