import { describe, expect, it } from "vitest";
import { decodeUtf8, invalidUtf8Offset } from "./utf8";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("UTF-8 with the offset of the first bad byte", () => {
  it("accepts well-formed text of every length", () => {
    expect(invalidUtf8Offset(new TextEncoder().encode("aé€😀"))).toBe(-1);
    expect(decodeUtf8(new TextEncoder().encode("\uFEFFcafé"))).toBe("\uFEFFcafé");
  });

  it("names the offset of a Latin-1 byte, a truncated character, an overlong form and a surrogate", () => {
    expect(invalidUtf8Offset(new Uint8Array([...new TextEncoder().encode("caf"), 0xe9, 0x20]))).toBe(3);
    expect(invalidUtf8Offset(bytes(0x61, 0xe2, 0x82))).toBe(1);
    expect(invalidUtf8Offset(bytes(0xc0, 0xaf))).toBe(0);
    expect(invalidUtf8Offset(bytes(0x41, 0xed, 0xa0, 0x80))).toBe(1);
    expect(invalidUtf8Offset(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0);
    // Node's own check agrees on what is UTF-8: the decoder refuses each of these.
    for (const bad of [bytes(0xe9), bytes(0xc0, 0xaf), bytes(0xed, 0xa0, 0x80)]) {
      expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bad)).toThrow();
    }
  });

  it("says the byte and the likely encoding", () => {
    expect(() => decodeUtf8(new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).toThrow(
      "byte 3 (0xE9) is not UTF-8; the text may be Latin-1 or Windows-1252: save it as UTF-8",
    );
  });
});
