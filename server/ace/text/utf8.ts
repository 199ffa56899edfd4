// Decoding request bodies and uploaded files as UTF-8, refusing bytes that are not UTF-8 (a Latin-1
// file, a truncated character) with their offset, rather than replacing them with U+FFFD unseen.
// Pure (no Node.js module): the server's request bodies and the CLI use it, and so does the browser's import dialog.

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The fast path: the platform's decoder, which refuses what the scan below refuses. */
function isWellFormed(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or -1 when every byte does.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  if (isWellFormed(bytes)) return -1;
  let at = 0;
  while (at < bytes.length) {
    const first = bytes[at] as number;
    if (first < 0x80) {
      at += 1;
      continue;
    }
    let length: number;
    let min: number;
    let max = 0xbf;
    if (first >= 0xc2 && first <= 0xdf) [length, min] = [2, 0x80];
    else if (first >= 0xe0 && first <= 0xef) {
      length = 3;
      min = first === 0xe0 ? 0xa0 : 0x80;
      if (first === 0xed) max = 0x9f; // U+D800–U+DFFF are not characters
    } else if (first >= 0xf0 && first <= 0xf4) {
      length = 4;
      min = first === 0xf0 ? 0x90 : 0x80;
      if (first === 0xf4) max = 0x8f; // nothing above U+10FFFF
    } else return at;
    for (let index = 1; index < length; index += 1) {
      const next = bytes[at + index];
      const [low, high] = index === 1 ? [min, max] : [0x80, 0xbf];
      if (next === undefined || next < low || next > high) return at;
    }
    at += length;
  }
  return -1;
}

export class InvalidUtf8Error extends Error {
  override readonly name = "InvalidUtf8Error";
  constructor(
    readonly offset: number,
    readonly byte: number,
  ) {
    super(
      `byte ${offset.toLocaleString("en-US")} (0x${byte.toString(16).toUpperCase().padStart(2, "0")}) is not UTF-8` +
        (byte >= 0xa0 ? "; the text may be Latin-1 or Windows-1252: save it as UTF-8" : ""),
    );
  }
}

/** The bytes as text; throws InvalidUtf8Error naming the first bad byte. A leading byte order mark is kept. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    const offset = invalidUtf8Offset(bytes);
    throw new InvalidUtf8Error(offset, bytes[offset] as number);
  }
}
