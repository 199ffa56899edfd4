// The ways one text can be read: as written, and after each step that undoes a common obfuscation
// (compatibility forms, invisible characters, split tokens, look-alike letters, digits for letters,
// letter-spacing). Rules run on every reading, so a finding can say which step revealed it.

import { confusablesMap } from "confusables";

export const NORMALISATION_STEPS = ["nfkc", "invisible", "token_spacing", "confusables", "leetspeak", "letter_spacing"] as const;
export const DECODING_STEPS = ["url", "base64"] as const;
export type NormalisationStep = (typeof NORMALISATION_STEPS)[number] | (typeof DECODING_STEPS)[number];

/** How a person reads each step in a finding. */
export const STEP_LABELS: Record<NormalisationStep, string> = {
  nfkc: "Unicode compatibility forms (NFKC, e.g. full-width letters)",
  invisible: "zero-width and other invisible characters removed",
  token_spacing: "spacing inside tokens removed",
  confusables: "look-alike letters from other scripts",
  leetspeak: "digits and symbols for letters",
  letter_spacing: "spaced-out letters joined",
  url: "URL-decoded",
  base64: "base64-decoded",
};

export interface Reading {
  text: string;
  /** The steps that changed the text on the way to this reading, in order; [] for the text as written. */
  steps: NormalisationStep[];
  /** Letters of spaced-out words were joined, so word gaps may be missing. */
  compact: boolean;
  /** Which rules read it: Latin-script rules read the look-alike skeleton, the others the native text. */
  scripts: "all" | "latin" | "native";
}

// Zero-width characters, joiners, bidi controls, word joiner and invisible operators, BOM, soft
// hyphen, Mongolian vowel separator, combining grapheme joiner, Hangul fillers, variation selectors
// and the tag block: all render as nothing.
const INVISIBLE =
  /[\u00AD\u034F\u115F\u1160\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;

/** Chat-template tokens and markers written with spaces inside: `< |im_start| >`, `[ / INST ]`, `< < SYS > >`. */
function joinTokenSpacing(text: string): string {
  if (!/[<[#\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u.test(text)) return text;
  return text
    .replace(/<\s*\|\s*([A-Za-z_][A-Za-z_ ]{0,30}?)\s*\|\s*>/gu, (_, name: string) => `<|${name.replace(/\s+/gu, "")}|>`)
    .replace(/\[\s*(\/?)\s*I\s*N\s*S\s*T\s*\]/giu, "[$1INST]")
    .replace(/<\s*<\s*(\/?)\s*S\s*Y\s*S\s*>\s*>/giu, "<<$1SYS>>")
    .replace(/(?<=^|\n)([ \t]*)#(?:[ \t]*#){0,5}/gu, (hashes: string, lead: string) => lead + hashes.replace(/[ \t]/gu, ""))
    .replace(/(?<=[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}])[ \t]+(?=[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}])/gu, "");
}

const NON_ASCII = /[^\u0000-\u007F]/u;

// Where the confusables table reads a letter as another one than a reader would (Greek iota as L, Ukrainian I as l).
const LOOK_ALIKE_OVERRIDES: Record<string, string> = { ι: "i", Ι: "I", І: "I", Ӏ: "I", ӏ: "l", н: "h", м: "m", т: "t", в: "b", к: "k" };

/** Every letter that looks like a Latin one becomes it; other characters stay. */
function toLatinSkeleton(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  let out = "";
  for (const char of text) {
    if (char.charCodeAt(0) < 0x80) {
      out += char;
      continue;
    }
    out += LOOK_ALIKE_OVERRIDES[char] ?? confusablesMap.get(char) ?? char;
  }
  return out;
}

const LATIN_TO_CYRILLIC: Record<string, string> = {
  a: "а",
  c: "с",
  e: "е",
  o: "о",
  p: "р",
  x: "х",
  y: "у",
  k: "к",
  m: "м",
  h: "н",
  b: "в",
  t: "т",
  A: "А",
  C: "С",
  E: "Е",
  O: "О",
  P: "Р",
  X: "Х",
  Y: "У",
  K: "К",
  M: "М",
  H: "Н",
  B: "В",
  T: "Т",
};

/** Latin look-alikes inside a Cyrillic word become Cyrillic, so Russian rules read the word. */
function cyrillicWords(text: string): string {
  if (!/\p{sc=Cyrillic}/u.test(text) || !/[A-Za-z]/u.test(text)) return text;
  return text.replace(/[\p{L}]+/gu, (word) =>
    /\p{sc=Cyrillic}/u.test(word) && /[A-Za-z]/u.test(word) ? word.replace(/[A-Za-z]/gu, (char) => LATIN_TO_CYRILLIC[char] ?? char) : word,
  );
}

const LEET: Record<string, string> = {
  "0": "o",
  "1": "i",
  "3": "e",
  "4": "a",
  "5": "s",
  "7": "t",
  "8": "b",
  "@": "a",
  $: "s",
  "!": "i",
  "|": "l",
};

/** Digits and symbols for letters, only inside words that also hold letters ("1gnore", "$3cret"; not "401"). */
function undoLeetspeak(text: string): string {
  if (!/\p{L}[0-9@$!|]|[0-9@$|]\p{L}/u.test(text)) return text;
  return (
    text
      .replace(/[\p{L}\p{N}@$!|']+/gu, (token: string, at: number, whole: string) => {
        if (!/\p{L}/u.test(token) || !/[0-9@$!|]/u.test(token)) return token;
        // An e-mail address keeps its "@" (the domain follows: "name@host.example").
        const email = token.includes("@") && /^[.-]/u.test(whole.slice(at + token.length));
        // Keep a trailing "!" as punctuation; symbols and digits inside the word are letters.
        const body = token.replace(/!+$/u, "");
        return body.replace(email ? /[0-9$!|]/gu : /[0-9@$!|]/gu, (char) => LEET[char] ?? char) + token.slice(body.length);
      })
      // A one-letter word written as a digit ("4 rule", "tudo 0 que") between two words.
      .replace(/(?<=\p{L} )[0134](?= \p{L})/gu, (char) => LEET[char] ?? char)
  );
}

/** Text written one character at a time with single spaces ("忽 略 之 前", "b a c k u p @ m a i l"); word gaps stay. */
function joinCharacterSpacing(text: string): string {
  if (!/\S \S \S \S/u.test(text)) return text;
  return text.replace(/(?<!\S)\S(?: \S){3,}(?!\S)/gu, (run) => run.replace(/ /gu, ""));
}

/** Spaced-out words ("i g n o r e", "s.y.s.t.e.m") joined; one separator kind per run. */
function joinLetterSpacing(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}])\p{L}(?:([ .\-_*·])\p{L})(?:\1\p{L})+(?![\p{L}\p{N}])/gu, (run) => run.replace(/[ .\-_*·]/gu, ""));
}

/**
 * The readings of a text, without repeats: as written, then each step applied on top of the one
 * before. Look-alike letters split the chain: Latin-script rules read the Latin skeleton, the others
 * read the text with Cyrillic words repaired.
 */
export function readings(text: string): Reading[] {
  const out: Reading[] = [{ text, steps: [], compact: false, scripts: "all" }];
  const push = (from: Reading, step: NormalisationStep, next: string, overrides: Partial<Reading> = {}): Reading => {
    if (next === from.text) {
      const same = { ...from, ...overrides };
      return same;
    }
    const reading: Reading = { ...from, ...overrides, text: next, steps: [...from.steps, step] };
    out.push(reading);
    return reading;
  };
  let base = out[0] as Reading;
  if (NON_ASCII.test(text)) {
    base = push(base, "nfkc", base.text.normalize("NFKC"));
    base = push(base, "invisible", base.text.replace(INVISIBLE, ""));
  }
  base = push(base, "token_spacing", joinTokenSpacing(base.text));

  const native = push(base, "confusables", cyrillicWords(base.text), { scripts: "native" });
  push(native, "letter_spacing", joinCharacterSpacing(native.text), { scripts: "native" });
  let latin = push(base, "confusables", toLatinSkeleton(base.text), { scripts: "latin" });
  latin = push(latin, "leetspeak", undoLeetspeak(latin.text), { scripts: "latin" });
  push(latin, "letter_spacing", joinLetterSpacing(latin.text), { scripts: "latin", compact: true });
  return dedupe(out);
}

function dedupe(list: Reading[]): Reading[] {
  const seen = new Set<string>();
  return list.filter((reading) => {
    const key = `${reading.scripts}|${reading.compact}|${reading.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Folds what a rule should not care about: accents on Latin and Cyrillic letters, ß, Devanagari and
 * Bengali nukta, Arabic diacritics, tatweel and letter variants. Rules fold their keywords the same way.
 */
export function fold(text: string): string {
  return text
    .normalize("NFD")
    .replace(/([\p{sc=Latin}])\p{M}+/gu, "$1")
    .replace(/[\u093C\u09BC]/gu, "")
    .replace(/[\u064B-\u065F\u0670\u0640]/gu, "")
    .normalize("NFC")
    .replace(/ß/gu, "ss")
    .replace(/ё/gu, "е")
    .replace(/Ё/gu, "Е")
    .replace(/[أإآٱ]/gu, "ا")
    .replace(/ى/gu, "ي")
    .replace(/ة/gu, "ه")
    .replace(/[’‘ʼ]/gu, "'");
}
