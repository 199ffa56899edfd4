import { describe, expect, it } from "vitest";
import { prettyJson, promptRounds, rawResponses, readCuration, readReflection, waitingReason } from "./run-record";

describe("promptRounds", () => {
  it("reads a model run's rounds of messages", () => {
    const rounds = promptRounds([
      [
        { role: "system", content: "You are the Reflector" },
        { role: "user", content: "Reflect on this run" },
      ],
    ]);
    expect(rounds).toEqual([
      {
        kind: "messages",
        messages: [
          { role: "system", content: "You are the Reflector" },
          { role: "user", content: "Reflect on this run" },
        ],
      },
    ]);
  });

  it("keeps an offline run's inputs as they are, and nothing as no rounds", () => {
    expect(promptRounds([{ rules: "offline reflector", trace: {} }])).toEqual([
      { kind: "inputs", value: { rules: "offline reflector", trace: {} } },
    ]);
    expect(promptRounds(null)).toEqual([]);
  });
});

describe("rawResponses and prettyJson", () => {
  it("lists answers as text and pretty-prints JSON ones", () => {
    expect(rawResponses(['{"a":1}', { b: 2 }])).toEqual(['{"a":1}', '{\n  "b": 2\n}']);
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson("not json")).toBe("not json");
  });
});

describe("readReflection", () => {
  it("reads the fields and tags, with unknown tags as neutral", () => {
    const view = readReflection({
      reasoning: "r",
      errorIdentification: "e",
      rootCause: "c",
      correctApproach: "a",
      keyInsight: "k",
      bulletTags: [
        { id: "str-00001", tag: "helpful", justification: "j" },
        { id: "str-00002", tag: "weird", justification: "" },
      ],
      lessons: [{ section: "s", content: "c", evidence: "e" }],
    });
    expect(view?.bulletTags.map((tag) => tag.tag)).toEqual(["helpful", "neutral"]);
    expect(view?.lessons).toHaveLength(1);
  });

  it("is null for output that is not a reflection", () => {
    expect(readReflection({ operations: [] })).toBeNull();
    expect(readReflection("text")).toBeNull();
  });
});

describe("readCuration", () => {
  it("reads operations, problems and notes", () => {
    const view = readCuration({
      reasoning: "why",
      operations: [{ type: "add", section: "s", content: "c", bulletIds: [], rationale: "r", confidence: 0.5 }],
      problems: ["Operation 2 (UPDATE [x]) was dropped"],
      notes: ["Delta proposed"],
    });
    expect(view?.operations[0]).toMatchObject({ type: "ADD", confidence: 0.5 });
    expect(view?.problems).toHaveLength(1);
    expect(view?.notes).toEqual(["Delta proposed"]);
  });
});

describe("waitingReason", () => {
  it("drops the Waiting prefix the badge already says", () => {
    expect(waitingReason("Waiting: the budget is used up.")).toBe("The budget is used up.");
  });
});
