import { describe, expect, it } from "vitest";
import { DeltaValidationError, validateDelta, type DeltaOperation, type Finding } from "@/server/ace/delta";
import { MISTAKES, STRATEGIES, samplePlaybook, testOptions } from "@/server/ace/delta/test-fixtures";
import { asSentence } from "@/server/ace/delta/messages";
import { AppError } from "@/server/errors/app-error";
import {
  addedRationales,
  describeStaleTargets,
  hasReviewFlags,
  invalidDelta,
  mergeTargets,
  operationTargets,
  payloadOf,
  provenanceFor,
  readEvidence,
  renumber,
  staleError,
  storedFindings,
  targetColumns,
} from "./findings";
import { evidenceSchema } from "./schemas";

const SECTIONS = [STRATEGIES, MISTAKES];
const NO_EVIDENCE = evidenceSchema.parse({});
const TRACE_ID = "3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b";

function finding(fields: Partial<Finding> & Pick<Finding, "operationIndex" | "message">): Finding {
  return { severity: "error", kind: "unknown_bullet", ...fields };
}

describe("operationTargets", () => {
  const cases: { title: string; op: DeltaOperation; bulletIds: string[]; sectionIds: string[] }[] = [
    {
      title: "an add depends on its section",
      op: { type: "add", section: "strategies_and_insights", content: "x" },
      bulletIds: [],
      sectionIds: ["s-str"],
    },
    {
      title: "a content update targets its bullet only",
      op: { type: "update", bulletId: "str-00001", content: "x" },
      bulletIds: ["str-00001"],
      sectionIds: [],
    },
    {
      title: "a move targets its bullet and the section it moves to",
      op: { type: "update", bulletId: "str-00001", section: "s-mis" },
      bulletIds: ["str-00001"],
      sectionIds: ["s-mis"],
    },
    {
      title: "a remove targets its bullet",
      op: { type: "remove", bulletId: "str-00002", reason: "Old." },
      bulletIds: ["str-00002"],
      sectionIds: [],
    },
    { title: "a restore targets its bullet", op: { type: "restore", bulletId: "str-00005" }, bulletIds: ["str-00005"], sectionIds: [] },
    { title: "a tag targets its bullet", op: { type: "tag", bulletId: "mis-00004", harmful: 1 }, bulletIds: ["mis-00004"], sectionIds: [] },
    {
      title: "a merge targets the merged bullets and the kept one",
      op: { type: "merge", bulletIds: ["str-00002", "str-00003"], into: "str-00001", content: "x" },
      bulletIds: ["str-00002", "str-00003", "str-00001"],
      sectionIds: [],
    },
    { title: "an add_section targets nothing yet", op: { type: "add_section", name: "Error recovery" }, bulletIds: [], sectionIds: [] },
    {
      title: "a rename_section targets its section",
      op: { type: "rename_section", section: "common_mistakes_to_avoid", name: "Pitfalls" },
      bulletIds: [],
      sectionIds: ["s-mis"],
    },
    {
      title: "a move_section targets its section, named by id",
      op: { type: "move_section", section: "s-str", position: 1 },
      bulletIds: [],
      sectionIds: ["s-str"],
    },
  ];

  it.each(cases)("$title", ({ op, bulletIds, sectionIds }) => {
    expect(operationTargets(op, SECTIONS)).toEqual({ bulletIds, sectionIds });
  });

  it("resolves a section written with other case and spaces, as the engine does", () => {
    const op: DeltaOperation = { type: "add", section: "Common Mistakes To Avoid", content: "x" };
    expect(operationTargets(op, SECTIONS).sectionIds).toEqual(["s-mis"]);
  });

  it("names no section the playbook does not have (an add to a section the delta creates)", () => {
    expect(operationTargets({ type: "add", section: "Error recovery", content: "x" }, SECTIONS)).toEqual({ bulletIds: [], sectionIds: [] });
  });

  it("lists a merge's kept bullet once when it is also among the merged ids", () => {
    const op: DeltaOperation = { type: "merge", bulletIds: ["str-00001", "str-00002", "str-00002"], into: "str-00001", content: "x" };
    expect(operationTargets(op, SECTIONS).bulletIds).toEqual(["str-00001", "str-00002"]);
  });
});

describe("mergeTargets and targetColumns", () => {
  it("unites the targets of several operations, each id once, in first-seen order", () => {
    const merged = mergeTargets([
      { bulletIds: ["str-00002", "str-00001"], sectionIds: ["s-mis"] },
      { bulletIds: ["str-00001", "mis-00004"], sectionIds: ["s-str", "s-mis"] },
    ]);
    expect(merged).toEqual({ bulletIds: ["str-00002", "str-00001", "mis-00004"], sectionIds: ["s-mis", "s-str"] });
    expect(mergeTargets([])).toEqual({ bulletIds: [], sectionIds: [] });
  });

  it("maps targets onto the operation row's columns", () => {
    expect(targetColumns({ bulletIds: ["str-00001"], sectionIds: ["s-str"] })).toEqual({
      targetIds: ["str-00001"],
      targetSectionIds: ["s-str"],
    });
  });
});

describe("staleness", () => {
  it("describes each bullet and section changed after the base version, bullets first", () => {
    const stale = describeStaleTargets(
      {
        bullets: [{ externalId: "str-00001", changedInVersion: 7 }],
        sections: [{ id: "s-mis", name: "common_mistakes_to_avoid", changedInVersion: 6 }],
      },
      4,
    );
    expect(stale).toEqual([
      {
        target: "str-00001",
        label: "[str-00001]",
        version: 7,
        message: "[str-00001] changed in version 7, after version 4 this delta was proposed against.",
      },
      {
        target: "s-mis",
        label: 'Section "common_mistakes_to_avoid"',
        version: 6,
        message: 'Section "common_mistakes_to_avoid" changed in version 6, after version 4 this delta was proposed against.',
      },
    ]);
  });

  it("is not stale when nothing it targets changed", () => {
    expect(describeStaleTargets({ bullets: [], sections: [] }, 4)).toEqual([]);
  });

  it("a stale delta is a CONFLICT that names the first change and offers a re-base, with every reason in its details", () => {
    const stale = describeStaleTargets(
      {
        bullets: [
          { externalId: "str-00001", changedInVersion: 5 },
          { externalId: "str-00002", changedInVersion: 6 },
        ],
        sections: [],
      },
      3,
    );
    const error = staleError(stale);
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toBe(
      "This delta is stale: [str-00001] changed in version 5, after version 3 this delta was proposed against. " +
        "Re-base it to review it against the current playbook, or reject it.",
    );
    expect(error.details).toEqual({ stale: true, reasons: stale.map((s) => s.message) });
  });
});

describe("numbering findings as the reviewer sees the delta", () => {
  const ops: DeltaOperation[] = [
    { type: "tag", bulletId: "str-00001", helpful: 1 },
    { type: "update", bulletId: "str-00001", content: "Edited." },
  ];

  it("moves a finding of a sub-list to its operation's place in the whole delta, message and related operation too", () => {
    const local = finding({
      operationIndex: 1,
      relatedOperationIndex: 0,
      kind: "contradiction",
      message: "Operation 2 (update [str-00001]): contradicts operation 1 (tag [str-00001]): keep one of them",
    });
    expect(renumber([local], ops, [3, 5])).toEqual([
      {
        ...local,
        operationIndex: 5,
        relatedOperationIndex: 3,
        message: "Operation 6 (update [str-00001]): contradicts operation 4 (tag [str-00001]): keep one of them",
      },
    ]);
  });

  it("renumbers the operation a near-duplicate inside the delta duplicates", () => {
    const adds: DeltaOperation[] = [
      { type: "add", section: "strategies_and_insights", content: "Log the request id of every failed call." },
      { type: "add", section: "common_mistakes_to_avoid", content: "Log the request id of every failed call!" },
    ];
    const [duplicate] = validateDelta(samplePlaybook(), adds, testOptions()).findings;
    const [moved] = renumber(duplicate ? [duplicate] : [], adds, [1, 3]);
    expect(moved).toMatchObject({ operationIndex: 3, relatedOperationIndex: 1 });
    expect(moved?.message).toMatch(/^Operation 4 \(add to "common_mistakes_to_avoid"\): the content duplicates operation #2 \(add to/);
  });

  it("keeps a message that does not start with the operation's label, and a finding of an operation it does not know", () => {
    const other = finding({ operationIndex: 0, message: "Something about the whole delta" });
    const unknown = finding({ operationIndex: 4, message: "Operation 5 (tag [x]): gone" });
    expect(renumber([other, unknown], ops, [2, 3])).toEqual([{ ...other, operationIndex: 2 }, unknown]);
  });

  it("an invalid delta is INVALID_INPUT with the first error renumbered, how many more, and the findings", () => {
    const invalid: DeltaOperation[] = [
      { type: "update", bulletId: "str-00005", content: "Archived." },
      { type: "remove", bulletId: "str-09999", reason: "Unknown." },
    ];
    const validation = validateDelta(samplePlaybook(), invalid, testOptions());
    const error = invalidDelta(new DeltaValidationError(validation), invalid, [2, 4]);
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toMatch(
      /^Operation 3 \(update \[str-00005\]\): the bullet \[str-00005\] is archived.* \(and 1 more problem\)\. Nothing was changed\.$/,
    );
    expect((error.details?.findings as Finding[]).map((f) => f.operationIndex)).toEqual([2, 4]);
    expect(error.cause).toBeInstanceOf(DeltaValidationError);
  });

  it("ends a finding with a full stop where another sentence follows, and leaves a finished sentence alone", () => {
    expect(asSentence("the content is empty; write the lesson the bullet should teach")).toBe(
      "the content is empty; write the lesson the bullet should teach.",
    );
    expect(asSentence("Reload the queue.")).toBe("Reload the queue.");
    expect(asSentence('It says "stop."')).toBe('It says "stop."');
    expect(asSentence("Is it? ")).toBe("Is it?");
    const stale = staleError([{ target: "x", label: "[x]", version: 3, message: "[x] changed in version 3" }]);
    expect(stale.message).toBe(
      "This delta is stale: [x] changed in version 3. Re-base it to review it against the current playbook, or reject it.",
    );
  });

  it("sends a delta to review for errors and for near-duplicates, budget, length and injection warnings, not for a no-op", () => {
    const warning = (kind: Finding["kind"]) => finding({ operationIndex: 0, severity: "warning", kind, message: "m" });
    expect(hasReviewFlags([finding({ operationIndex: 0, message: "m" })])).toBe(true);
    for (const kind of ["near_duplicate", "token_budget", "content_too_long", "prompt_injection"] as const) {
      expect(hasReviewFlags([warning(kind)])).toBe(true);
    }
    expect(hasReviewFlags([warning("no_change")])).toBe(false);
    expect(hasReviewFlags([])).toBe(false);
  });

  it("reads stored findings and payloads back, an unreadable flags column as none", () => {
    const stored = [finding({ operationIndex: 0, message: "m" })];
    expect(storedFindings(stored)).toEqual(stored);
    expect(storedFindings(null)).toEqual([]);
    expect(storedFindings({ not: "a list" })).toEqual([]);
    expect(payloadOf({ position: 0, payload: ops[0] })).toEqual(ops[0]);
    expect(() => payloadOf({ deltaId: "d-1", position: 1, payload: { type: "tag" } })).toThrow(
      /^Operation 2 of delta d-1 has a stored payload that cannot be read \(bulletId: /,
    );
  });
});

describe("provenance of added bullets", () => {
  it("maps each delta origin to the bullet's origin", () => {
    const originOf = (origin: Parameters<typeof provenanceFor>[0]) => provenanceFor(origin, NO_EVIDENCE, "", new Map())("x").origin;
    expect(originOf("person")).toBe("manual");
    expect(originOf("rollback")).toBe("manual");
    expect(originOf("reflector")).toBe("curator");
    expect(originOf("curator")).toBe("curator");
    expect(originOf("pruning")).toBe("curator");
    expect(originOf("import")).toBe("import");
  });

  it("justifies a bullet with its add operation's rationale, else the delta's, else nothing", () => {
    const provenance = provenanceFor("curator", NO_EVIDENCE, "Lessons from run 12", new Map([["str-00006", "Seen in 3 runs."]]));
    expect(provenance("str-00006").justification).toBe("Seen in 3 runs.");
    expect(provenance("str-00007").justification).toBe("Lessons from run 12");
    expect(provenanceFor("person", NO_EVIDENCE, "", new Map())("str-00006").justification).toBeNull();
    expect(provenanceFor("person", NO_EVIDENCE, "y".repeat(3_000), new Map())("x").justification).toHaveLength(2_000);
  });

  it("links the first evidence trace that is a stored trace's id, and the first run", () => {
    const evidence = evidenceSchema.parse({ traceIds: ["appworld-task-7", TRACE_ID], runIds: ["run-1", "run-2"] });
    expect(provenanceFor("curator", evidence, "", new Map())("x")).toEqual({
      origin: "curator",
      justification: null,
      sourceTraceId: TRACE_ID,
      sourceRunId: "run-1",
    });
    const external = evidenceSchema.parse({ traceIds: ["appworld-task-7"] });
    expect(provenanceFor("curator", external, "", new Map())("x")).toMatchObject({ sourceTraceId: null, sourceRunId: null });
  });

  it("pairs each add operation's rationale with the id it produced, in delta order", () => {
    const ops = [
      { op: { type: "add", section: "str", content: "A." } as const, rationale: "First." },
      { op: { type: "tag", bulletId: "str-00001", helpful: 1 } as const, rationale: "Not an add." },
      { op: { type: "add", section: "str", content: "B." } as const, rationale: "" },
      { op: { type: "add", section: "mis", content: "C." } as const, rationale: "Third." },
    ];
    expect(addedRationales(ops, ["str-00006", "str-00007", "mis-00008"])).toEqual(
      new Map([
        ["str-00006", "First."],
        ["mis-00008", "Third."],
      ]),
    );
  });

  it("reads stored evidence, and evidence that does not parse as none", () => {
    expect(readEvidence({ traceIds: [TRACE_ID], notes: "key insight" })).toEqual({
      ...NO_EVIDENCE,
      traceIds: [TRACE_ID],
      notes: "key insight",
    });
    expect(readEvidence(null)).toEqual(NO_EVIDENCE);
    expect(readEvidence({ traceIds: "not a list" })).toEqual(NO_EVIDENCE);
  });
});
