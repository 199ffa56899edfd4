// Encoded segments a reviewer cannot read at a glance: percent-encoding and base64. Each decoded
// segment is read again like any text, so an encoded payload is found as if written plainly.

export interface DecodedSegment {
  how: "url" | "base64";
  text: string;
}

const URL_ENCODED = /[^\s%]*(?:%[0-9A-Fa-f]{2}[^\s%]*){2,}/gu;
// Standard and URL-safe alphabets; 16 characters decode to 12 bytes, the shortest phrase worth reading.
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/_=-])/gu;
const MAX_SEGMENTS = 20;
const MAX_SEGMENT_LENGTH = 20_000;

/** Percent-decoded runs (with "+" as a space), where decoding changes something and gives valid UTF-8. */
function urlSegments(text: string): string[] {
  const out: string[] = [];
  for (const [run] of text.matchAll(URL_ENCODED)) {
    // The whole run, and each query value on its own so that a decoded value starts its own text.
    const parts = [run, ...run.split(/[?&=]/u).filter((part) => part !== run && /%[0-9A-Fa-f]{2}/u.test(part))];
    for (const part of parts) {
      const decoded = percentDecode(part.replace(/\+/gu, " "));
      if (decoded !== null && decoded !== part) out.push(decoded);
    }
  }
  return out;
}

function percentDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    // A lone "%" or a broken sequence: decode the valid runs only.
    try {
      return text.replace(/(?:%[0-9A-Fa-f]{2})+/gu, (run) => {
        try {
          return decodeURIComponent(run);
        } catch {
          return run;
        }
      });
    } catch {
      return null;
    }
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The run decoded when it is base64 of mostly printable UTF-8 text with at least one word in it. */
export function decodeBase64Text(run: string): string | null {
  const body = run.replace(/=+$/u, "");
  // A word or identifier is not base64: an encoded phrase mixes case or digits.
  if (!/[A-Z]/u.test(body) || !/[a-z0-9]/u.test(body)) return null;
  if (body.length % 4 === 1) return null;
  const standard = body.replace(/-/gu, "+").replace(/_/gu, "/");
  let binary: string;
  try {
    binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return null;
  }
  const characters = [...text];
  const printable = characters.filter((char) => /[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}\n\t]/u.test(char)).length;
  if (characters.length === 0 || printable / characters.length < 0.9) return null;
  return /\p{L}{2,}/u.test(text) ? text : null;
}

function base64Segments(text: string): string[] {
  const out: string[] = [];
  for (const [run] of text.matchAll(BASE64_RUN)) {
    const decoded = decodeBase64Text(run);
    if (decoded !== null) out.push(decoded);
  }
  return out;
}

/** The decodable segments of a text, at most a few dozen, each capped in length. */
export function decodedSegments(text: string): DecodedSegment[] {
  const out: DecodedSegment[] = [];
  if (text.includes("%")) for (const segment of urlSegments(text)) out.push({ how: "url", text: segment });
  if (/[A-Za-z0-9+/_-]{16}/u.test(text)) for (const segment of base64Segments(text)) out.push({ how: "base64", text: segment });
  return out.slice(0, MAX_SEGMENTS).map((segment) => ({ ...segment, text: segment.text.slice(0, MAX_SEGMENT_LENGTH) }));
}
