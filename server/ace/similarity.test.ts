import { describe, expect, it } from "vitest";
import { bullet } from "./delta/test-fixtures";
import {
  FEATURE_WEIGHTS,
  buildSimilarityIndex,
  cosine,
  createFewSimilarityIndex,
  createSimilarityIndex,
  normalizeForSimilarity,
  syncSimilarityIndex,
  vectorizeText,
  type SimilarityIndex,
  type SparseVector,
} from "./similarity";
import { createWordScanIndex } from "./word-scan-index";

const score = (a: string, b: string) => createSimilarityIndex().compare(a, b);

describe("normalisation", () => {
  it("lower-cases, applies NFKC and turns punctuation and symbols into single spaces", () => {
    expect(normalizeForSimilarity("  Ｃｈｅｃｋ the API—response (status_code)!! ")).toBe("check the api response status code");
  });

  it("normalises ASCII text, which takes a quicker way, as the Unicode rules do", () => {
    // The rules as written for any text: every ASCII character, alone and between letters and digits.
    const byUnicode = (text: string) =>
      text
        .normalize("NFKC")
        .toLowerCase()
        .replace(/[\p{P}\p{S}\p{C}]+/gu, " ")
        .replace(/\s+/gu, " ")
        .trim();
    const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
    const texts = [ascii.join(""), ...ascii.map((char) => `Ab${char}9 x${char}${char}Y `), " \t\n Two\r\nlines\u0000 and_more... "];
    for (const text of texts) expect(normalizeForSimilarity(text)).toBe(byUnicode(text));
  });

  it("gives every non-empty text a vector of length 1", () => {
    for (const text of ["Retry.", "the", "Use pagination when listing results", "日本語のテキスト 🙂"]) {
      const length = Math.sqrt([...vectorizeText(text).values()].reduce((sum, weight) => sum + weight * weight, 0));
      expect(length).toBeCloseTo(1, 12);
    }
    expect(vectorizeText("?!").size).toBe(0);
  });

  it("weights words and 3-grams most and bigrams least", () => {
    expect(FEATURE_WEIGHTS.word + FEATURE_WEIGHTS.bigram + FEATURE_WEIGHTS.trigram).toBeCloseTo(1, 12);
    expect(FEATURE_WEIGHTS.bigram).toBeLessThan(FEATURE_WEIGHTS.word);
  });
});

describe("scores", () => {
  it("scores texts that differ only in case and punctuation as 1", () => {
    expect(score("Always validate the API response before parsing it.", "always VALIDATE the api response before parsing it!!")).toBe(1);
  });

  it.each([
    ["Always validate the API response before parsing it.", "Always validate API responses before parsing them."],
    ["Use pagination when listing more than 100 items from the API.", "When listing more than 100 items from the API, use pagination."],
    ["Retry failed network requests with exponential backoff.", "Retry failed network requests using exponential backoff."],
  ])("scores the paraphrase %j / %j at or above 0.85", (a, b) => {
    expect(score(a, b)).toBeGreaterThanOrEqual(0.85);
  });

  it.each([
    ["Retry failed network requests with exponential backoff.", "Cache the user's preferences locally to avoid extra calls."],
    ["Always validate the API response before parsing it.", "Double-check units before reporting a final numeric answer."],
  ])("scores the unrelated %j / %j low", (a, b) => {
    expect(score(a, b)).toBeLessThan(0.2);
  });

  it("is symmetric", () => {
    const a = "Log in as the supervisor first.";
    const b = "First log in as the supervisor, then act.";
    expect(score(a, b)).toBe(score(b, a));
  });
});

describe("the index", () => {
  const unit = (entries: [string, number][]): SparseVector => new Map(entries);

  it("counts a score exactly at the threshold as a match, and not a hair above it", () => {
    // Injected vectors with an exactly representable cosine: (1, 0) · (0.6, 0.8) = 0.6.
    const vectors: Record<string, SparseVector> = {
      a: unit([["x", 1]]),
      b: unit([
        ["x", 0.6],
        ["y", 0.8],
      ]),
    };
    const index = createSimilarityIndex({ vectorize: (text) => vectors[text] ?? new Map() });
    index.add("str-00001", "b");
    expect(index.query("a", { threshold: 0.6 })).toEqual([{ bulletId: "str-00001", score: 0.6 }]);
    expect(index.query("a", { threshold: 0.6 + 1e-12 })).toEqual([]);
  });

  it("scores bit for bit as an index of vectorizeText's vectors (it counts features straight into ids), as the word-scan index does", () => {
    const contents = [
      "Retry the request on a 429; retry again after the Retry-After header.",
      "Ｆｕｌｌ-width ﬁle names and café résumé naïve über straße",
      "Emoji 😀 and astral 𝒜𝒷𝒸 characters stay whole 😀",
      "one",
      "?!",
      "Always check the page_index before the page_limit, always.",
      "always check the page index before the page limit",
      // Function words only: no word features, so the 3-grams carry the whole vector.
      "It is what it is.",
      "it is what it was",
    ];
    const fast = createSimilarityIndex();
    const scan = createWordScanIndex();
    const general = createSimilarityIndex({ vectorize: vectorizeText });
    for (const index of [fast, scan, general]) {
      contents.forEach((content, i) => index.add(`b-${i}`, content));
      index.remove("b-3");
    }
    for (const query of [...contents, "retry after the header", "café resume", "page index limit check", "one"]) {
      for (const threshold of [0.05, 0.5, 0.85]) {
        const expected = general.query(query, { threshold, limit: 10 });
        expect(fast.query(query, { threshold, limit: 10 })).toEqual(expected);
        expect(scan.query(query, { threshold, limit: 10 })).toEqual(expected);
      }
    }
  });
});

describe("the index for a few texts", () => {
  it("scores as the default index does, to the bit, also after texts are replaced and removed", () => {
    const corpus = syntheticBullets(60, 29, { minWords: 1, maxWords: 30 });
    const full = createSimilarityIndex();
    const few = full.emptyForFew?.();
    if (!few) throw new Error("the default index makes no index for a few texts");
    corpus.forEach((content, i) => [full, few].forEach((index) => index.add(`b-${i}`, content)));
    for (const index of [full, few]) {
      index.add("b-3", corpus[40] ?? "");
      index.remove("b-7");
    }
    const random = lcg(9);
    for (const query of corpus.slice(0, 30).map((content) => reword(content, random))) {
      const wanted = { threshold: 0.2, limit: 100 };
      expect(few.query(query, wanted), query).toEqual(full.query(query, wanted));
    }
    expect(few.size).toBe(full.size);
  });

  it("vectorizes a text once when a delta asks its index and its own about it, then writes it", () => {
    const texts: string[] = [];
    const vectorize = (text: string) => {
      texts.push(text);
      return vectorizeText(text);
    };
    const full = createSimilarityIndex({ vectorize });
    full.add("a", "Check the balance before paying.");
    const few = full.emptyForFew?.();
    if (!few) throw new Error("the index makes no index for a few texts");
    texts.length = 0;
    const lesson = "Check the balance before paying the bill.";
    expect(full.query(lesson, { threshold: 0.5 }).map((match) => match.bulletId)).toEqual(["a"]);
    expect(few.query(lesson, { threshold: 0.5 })).toEqual([]);
    few.add("new", lesson);
    expect(few.query(lesson, { threshold: 0.5 }).map((match) => match.bulletId)).toEqual(["new"]);
    expect(texts).toEqual([lesson]);
  });
});

// The default index, the word-scan index the engine searches while the default one is built, and
// the one a delta keeps the bullets it writes in.
describe.each([
  ["the index", createSimilarityIndex],
  ["the word-scan index", createWordScanIndex],
  ["the index for a few texts", createFewSimilarityIndex],
])("%s", (_name, create: () => SimilarityIndex) => {
  it("finds exactly what scoring every bullet finds, at several thresholds", () => {
    const corpus = syntheticBullets(500);
    const index = create();
    corpus.forEach((content, i) => index.add(`b-${i}`, content));
    const scoresOf = bruteForce(corpus);
    const queries = [...corpus.slice(0, 20).map((content) => `${content} again`), ...syntheticBullets(20, 99)];
    for (const query of queries) {
      const scores = scoresOf(query);
      for (const threshold of [0.3, 0.6, 0.85]) expectFound(index, query, scores, threshold);
    }
  });

  it("finds exactly what scoring every bullet finds when every word is common and bullets are long", () => {
    // The duplicate check's hard case: thousands of candidates share a word, so most are dropped
    // while reading; a bullet scoring exactly the threshold must survive that.
    const corpus = syntheticBullets(1_000, 11, { minWords: 4, maxWords: 60 });
    const index = create();
    corpus.forEach((content, i) => index.add(`b-${i}`, content));
    const scoresOf = bruteForce(corpus);
    const random = lcg(5);
    const queries = [
      ...corpus.slice(0, 24).map((content) => reword(content, random)),
      ...syntheticBullets(12, 123, { minWords: 4, maxWords: 60 }),
    ];
    let nearThreshold = 0;
    for (const query of queries) {
      const scores = scoresOf(query);
      const ranked = [...scores.values()].sort((a, b) => b - a);
      // The best, the third and the tenth score as thresholds (a hair under, against rounding), then fixed ones.
      const atScores = [0, 2, 9].map((rank) => (ranked[rank] ?? 1) - 1e-12).filter((threshold) => threshold > 0);
      for (const threshold of [...atScores, 0.5, 0.7, 0.8, 0.85, 0.9]) nearThreshold += expectFound(index, query, scores, threshold);
    }
    // Matches just above the threshold are what a wrong early stop would lose: the fixture has plenty.
    expect(nearThreshold).toBeGreaterThan(100);
  }, 30_000); // the word-scan index scores most of the corpus at the low thresholds: slow, and exact all the same

  it("finds exactly what scoring every bullet finds after removals, re-indexing and one-word bullets", () => {
    const corpus = syntheticBullets(1_200, 17, { minWords: 1, maxWords: 40 });
    const index = create();
    corpus.forEach((content, i) => index.add(`b-${i}`, content));
    // Removed and re-indexed bullets leave empty slots in the posting lists (too few for a compaction).
    const current = [...corpus];
    for (let i = 0; i < current.length; i += 7) {
      index.remove(`b-${i}`);
      current[i] = "";
    }
    for (let i = 3; i < current.length; i += 11) {
      current[i] = i % 2 === 0 ? "retry" : `${corpus[(i * 5) % corpus.length] ?? ""} retry`;
      index.add(`b-${i}`, current[i] ?? "");
    }
    const scoresOf = bruteForce(current);
    const random = lcg(3);
    const queries = [
      ...current
        .filter((content) => content !== "")
        .slice(0, 25)
        .map((content) => reword(content, random)),
      "retry",
      "Retry!",
    ];
    for (const query of queries) {
      const scores = scoresOf(query);
      for (const threshold of [0.6, 0.8, 0.85, 0.95]) expectFound(index, query, scores, threshold);
    }
  });

  it("finds one-word bullets, which have no bigrams", () => {
    const index = create();
    syntheticBullets(50).forEach((content, i) => index.add(`b-${i}`, content));
    index.add("one", "Retry");
    expect(index.query("retry!", { threshold: 0.85 })).toEqual([{ bulletId: "one", score: 1 }]);
  });

  it("returns the best matches first, ties by id, up to the limit, without excluded ids", () => {
    const index = create();
    index.add("b", "Check the balance before paying.");
    index.add("a", "Check the balance before paying.");
    index.add("c", "Check the balance before paying the bill.");
    index.add("d", "Something else entirely.");
    expect(index.query("check the balance before paying", { threshold: 0.5 }).map((match) => match.bulletId)).toEqual(["a", "b", "c"]);
    expect(index.query("check the balance before paying", { threshold: 0.5, limit: 1 }).map((match) => match.bulletId)).toEqual(["a"]);
    expect(
      index.query("check the balance before paying", { threshold: 0.5, excludeIds: new Set(["a", "b"]) }).map((match) => match.bulletId),
    ).toEqual(["c"]);
  });

  it("forgets removed bullets and re-indexes changed content, also after compaction", () => {
    const index = create();
    for (let i = 0; i < 1_500; i += 1) index.add(`tmp-${i}`, `temporary bullet number ${i}`);
    index.add("keep", "Confirm the payment went through before closing.");
    for (let i = 0; i < 1_500; i += 1) index.remove(`tmp-${i}`);
    expect(index.size).toBe(1);
    expect(index.query("temporary bullet number 7", { threshold: 0.5 })).toEqual([]);
    expect(index.query("Confirm the payment went through before closing", { threshold: 0.85 })).toEqual([{ bulletId: "keep", score: 1 }]);
    index.add("keep", "Something different now.");
    expect(index.query("Confirm the payment went through before closing", { threshold: 0.85 })).toEqual([]);
    expect(index.has("keep")).toBe(true);
  });

  it("finds bullets added and re-indexed after a search, and not the content they had", () => {
    const index = create();
    syntheticBullets(300).forEach((content, i) => index.add(`b-${i}`, content));
    const lesson = "Confirm the payment went through before closing the ticket";
    const found = () => index.query(lesson, { threshold: 0.85 }).map((match) => match.bulletId);
    expect(found()).toEqual([]);
    index.add("new", lesson);
    expect(found()).toEqual(["new"]);
    index.add("b-0", `${lesson}.`);
    index.add("new", "Something else entirely");
    expect(found()).toEqual(["b-0"]);
  });

  it("builds from active bullets only, and follows a version's changes", () => {
    const active = bullet("str-00001", "Use the paging helper for long lists.");
    const archived = bullet("str-00002", "Guess the date.", { status: "archived" });
    const index = buildSimilarityIndex([active, archived], create);
    expect(index.size).toBe(1);
    syncSimilarityIndex(index, [
      { entity: "bullet", id: "str-00001", before: active, after: { ...active, status: "archived" } },
      { entity: "bullet", id: "str-00002", before: archived, after: { ...archived, status: "active" } },
      { entity: "bullet", id: "str-00003", before: null, after: bullet("str-00003", "New bullet.") },
    ]);
    expect(index.has("str-00001")).toBe(false);
    expect(index.has("str-00002")).toBe(true);
    expect(index.query("new bullet", { threshold: 0.85 })).toEqual([{ bulletId: "str-00003", score: 1 }]);
  });

  it("makes empty indexes that score the same way", () => {
    const index = create();
    index.add("x", "Anything.");
    const fresh = index.empty();
    expect(fresh.size).toBe(0);
    expect(fresh.compare("a b c", "a b d")).toBe(index.compare("a b c", "a b d"));
  });
});

/** Scores a query against every bullet of `contents` (ids b-<i>; "" stands for a bullet not indexed). */
function bruteForce(contents: readonly string[]): (query: string) => Map<string, number> {
  const vectors = contents.map((content) => (content === "" ? null : vectorizeText(content)));
  return (query) => {
    const queryVector = vectorizeText(query);
    const scores = new Map<string, number>();
    vectors.forEach((vector, i) => vector && scores.set(`b-${i}`, cosine(queryVector, vector)));
    return scores;
  };
}

/** Expects the index to find exactly the bullets scoring at or above the threshold; returns how many score under threshold + 0.01. */
function expectFound(index: SimilarityIndex, query: string, scores: ReadonlyMap<string, number>, threshold: number): number {
  const expected = [...scores].filter(([, score]) => score >= threshold);
  const found = index.query(query, { threshold, limit: scores.size });
  expect(found.map((match) => match.bulletId).sort()).toEqual(expected.map(([id]) => id).sort());
  for (const match of found) expect(match.score).toBeCloseTo(scores.get(match.bulletId) ?? -1, 12);
  return expected.filter(([, score]) => score < threshold + 0.01).length;
}

function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** A light rewording, as a curator makes: a word dropped, one added, or two swapped. */
function reword(content: string, random: () => number): string {
  const words = content.split(" ");
  const at = Math.floor(random() * words.length);
  const kind = Math.floor(random() * 3);
  if (kind === 0 && words.length > 3) words.splice(at, 1);
  else if (kind === 1 || words.length < 2) words.splice(at, 0, "always");
  else [words[at], words[(at + 1) % words.length]] = [words[(at + 1) % words.length] ?? "", words[at] ?? ""];
  return words.join(" ");
}

/**
 * Bullets from a small vocabulary, so many share words and bigrams: the hard case for the early stop.
 * Compound tokens ("page_index") give bigrams that every bullet using them shares.
 */
function syntheticBullets(count: number, seed = 7, { minWords = 3, maxWords = 12 } = {}): string[] {
  const words = (
    "check verify page index api response retry timeout token login supervisor balance amount date " +
    "parse json field missing empty list sort filter total sum before after every first last"
  ).split(" ");
  const compounds = ["page_index", "apis.api_docs.show_api_doc", "access_token", "complete_task"];
  const random = lcg(seed);
  return Array.from({ length: count }, () => {
    const length = minWords + Math.floor(random() * (maxWords - minWords + 1));
    return Array.from({ length }, () => {
      // Drawn after the word, so the default fixtures keep the words they always had.
      const word = words[Math.floor(random() * words.length)] ?? "";
      return maxWords > 12 && random() < 0.05 ? (compounds[Math.floor(random() * compounds.length)] ?? word) : word;
    }).join(" ");
  });
}
