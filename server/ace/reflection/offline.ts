// The rule-based Reflector of the offline provider (no model configured): it tags the cited bullets
// by the run's outcome and turns the feedback signals (errors, a wrong answer, failing tests) into
// candidate lessons for the curator.
import { DEFAULT_SECTIONS } from "../ids";
import { ANSWER_FORM_LESSON, ANSWER_VALUE_LESSON, errorLesson, FAILING_TESTS_LESSON } from "./lessons";
import { REFLECTION_LIMITS, type BulletTag, type Reflection } from "./schema";
import {
  distinctErrors,
  groundTruthOf,
  knownCitations,
  normalizeAnswer,
  type CitedBullet,
  type ReflectorTrace,
  type TraceOutcome,
} from "./trace";
import { plural, pluralWord } from "../text/format";

/** A lesson the offline reflector proposes; the curator turns it into an add operation. */
export interface CandidateLesson {
  /** A section name; the curator maps it onto the playbook's sections. */
  section: string;
  content: string;
  /** What in the trace supports it. */
  evidence: string;
  /**
   * The same lesson without the task or anything else of this one instance (reflection/lessons.ts):
   * what the curator proposes, once per pattern however many runs teach it. Lessons stored before
   * this field was written everywhere lack it; the curator derives it from `content` then.
   */
  general?: string;
}

/** A reflection plus the lessons behind its keyInsight; `lessons` is not part of the model's schema. */
export type OfflineReflection = Reflection & { lessons: CandidateLesson[] };

const MISTAKES_SECTION = DEFAULT_SECTIONS.find((section) => section.slug === "mis")?.name ?? "common_mistakes_to_avoid";

/** An error is a pitfall the run ran into: the default "mistakes" section. */
export const OFFLINE_LESSON_SECTION = MISTAKES_SECTION;

/**
 * A wrong answer or failing tests call for a check before finishing. The curator places these in a
 * verification section when the playbook has one, else with the mistakes (curation/sections.ts).
 */
export const OFFLINE_CHECK_SECTION = "verification_checklist";

const OFFLINE_TAG: Record<TraceOutcome, { tag: BulletTag; justification: string }> = {
  success: { tag: "helpful", justification: "The agent cited this bullet and the task succeeded." },
  failure: { tag: "harmful", justification: "The agent cited this bullet and the task failed." },
  unknown: { tag: "neutral", justification: "The agent cited this bullet, but the outcome is unknown, so its effect cannot be judged." },
};

/** Distinct errors past this count add no lesson: a run with many errors usually repeats one cause. */
export const OFFLINE_MAX_ERROR_LESSONS = 5;

const GIST_LENGTH = 80;
const QUOTE_LENGTH = 160;

/**
 * A deterministic reflection with no model: every cited bullet the playbook has is tagged by the
 * outcome (success → helpful, failure → harmful, unknown → neutral); cited ids the playbook lacks
 * are named in the reasoning and otherwise ignored. Lessons come from the feedback: one per
 * distinct tool error, one for a wrong answer (failure, a ground truth, and an output that differs
 * from it after normalisation), one for failing tests. keyInsight is the first lesson, or "".
 */
export function reflectOffline(trace: ReflectorTrace, citedBullets: readonly CitedBullet[]): OfflineReflection {
  const { known, unknownIds } = knownCitations(trace, citedBullets);
  const verdict = OFFLINE_TAG[trace.outcome];
  const bulletTags = known
    .slice(0, REFLECTION_LIMITS.bulletTags)
    .map((bullet) => ({ id: bullet.externalId, tag: verdict.tag, justification: verdict.justification }));

  const gist = taskGist(trace.task);
  const errors = distinctErrors(trace.feedback.errors);
  const wrongAnswer = wrongAnswerOf(trace);
  const failingTests = trace.outcome === "failure" ? failingTestLine(trace.feedback.testResults) : null;

  const lessons: CandidateLesson[] = [];
  if (wrongAnswer) {
    const expectedForm = answerForm(wrongAnswer.expected);
    const formDiffers = expectedForm !== answerForm(wrongAnswer.actual);
    lessons.push({
      section: OFFLINE_CHECK_SECTION,
      content: `${gist}: give the answer as ${expectedForm}, like "${quote(wrongAnswer.expected)}"; check the final answer's form and value against the task before finishing.`,
      evidence: `Expected "${quote(wrongAnswer.expected)}" (${expectedForm}), the agent answered "${quote(wrongAnswer.actual)}".`,
      general: formDiffers ? ANSWER_FORM_LESSON : ANSWER_VALUE_LESSON,
    });
  }
  for (const error of errors.slice(0, OFFLINE_MAX_ERROR_LESSONS)) {
    lessons.push({
      section: OFFLINE_LESSON_SECTION,
      content: `${gist}: anticipate and handle the error "${quote(error)}" instead of repeating the step that caused it.`,
      evidence: `Error reported by the run: "${quote(error)}".`,
      general: errorLesson(quote(error), trace.task),
    });
  }
  if (failingTests) {
    lessons.push({
      section: OFFLINE_CHECK_SECTION,
      content: `${gist}: run the tests before finishing; a previous attempt failed with "${quote(failingTests)}".`,
      evidence: `Test results: "${quote(failingTests)}".`,
      general: FAILING_TESTS_LESSON,
    });
  }

  const reasoning = [
    `Rule-based reflection (no model). Reported outcome: ${trace.outcome}.`,
    bulletTags.length > 0
      ? `Tagged ${bulletTags.length} cited ${pluralWord(bulletTags.length, "bullet")} as ${verdict.tag}.`
      : "No cited bullet to tag.",
    unknownIds.length > 0
      ? `Ignored cited ${pluralWord(unknownIds.length, "id")} not in the playbook: ${unknownIds.map((id) => `[${id}]`).join(", ")}.`
      : "",
    lessons.length > 0
      ? `Found ${lessons.length} candidate ${pluralWord(lessons.length, "lesson")} in the feedback.`
      : "The feedback holds no error, wrong answer or failing test to learn from.",
  ];

  return {
    reasoning: clip(reasoning.filter(Boolean).join(" "), REFLECTION_LIMITS.reasoning),
    errorIdentification: clip(errorIdentification(trace, errors, wrongAnswer, failingTests), REFLECTION_LIMITS.field),
    rootCause: clip(
      lessons.length > 0 ? "Not determined: a rule-based reflection sees the feedback signals, not the reasoning behind them." : "",
      REFLECTION_LIMITS.field,
    ),
    correctApproach: clip(lessons.map((lesson) => lesson.content).join(" "), REFLECTION_LIMITS.field),
    keyInsight: clip(lessons[0]?.content ?? "", REFLECTION_LIMITS.keyInsight),
    bulletTags,
    lessons,
  };
}

function errorIdentification(
  trace: ReflectorTrace,
  errors: readonly string[],
  wrongAnswer: { expected: string; actual: string } | null,
  failingTests: string | null,
): string {
  const signals: string[] = [];
  if (wrongAnswer) signals.push(`The answer "${quote(wrongAnswer.actual)}" differs from the expected "${quote(wrongAnswer.expected)}".`);
  if (errors.length > 0) signals.push(`${plural(errors.length, "error")} reported, first: "${quote(errors[0] ?? "")}".`);
  if (failingTests) signals.push(`Tests failed: "${quote(failingTests)}".`);
  switch (trace.outcome) {
    case "success":
      return signals.length > 0 ? `The task succeeded despite: ${signals.join(" ")}` : "No error: the task succeeded.";
    case "failure":
      return signals.length > 0 ? signals.join(" ") : "The task failed; the feedback names no specific error.";
    case "unknown":
      return signals.length > 0 ? `Outcome unknown. ${signals.join(" ")}` : "The outcome is unknown and the feedback names no error.";
  }
}

function wrongAnswerOf(trace: ReflectorTrace): { expected: string; actual: string } | null {
  const expected = groundTruthOf(trace);
  if (trace.outcome !== "failure" || expected === null) return null;
  const actual = trace.output.trim();
  return normalizeAnswer(actual) === normalizeAnswer(expected) ? null : { expected, actual };
}

/** What kind of answer the ground truth is, in words: "a number with 2 decimal places", "a list of 3 items" … */
export function answerForm(answer: string): string {
  const text = answer.trim();
  if (/^(?:yes|no|true|false)$/iu.test(text)) return "a plain yes/no value";
  if (/^-?[$€£]?\d[\d,]*(?:\.\d+)?%$/u.test(text)) return "a percentage";
  const number = /^-?[$€£]?\d[\d,]*(?:\.(\d+))?$/u.exec(text);
  if (number) {
    const decimals = number[1]?.length ?? 0;
    return decimals > 0 ? `a number with ${decimals} decimal ${pluralWord(decimals, "place")}` : "a whole number";
  }
  if (/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/u.test(text)) return "an ISO date (YYYY-MM-DD)";
  const items = text.split(/\s*(?:\n|,|;)\s*/u).filter(Boolean);
  if (items.length > 1) return `a list of ${items.length} items`;
  const words = text.split(/\s+/u).filter(Boolean).length;
  return words <= 3 ? "a short phrase" : `a text of about ${words} words`;
}

/** The line of test output that names the failure, else the first line. */
function failingTestLine(testResults: string | undefined): string | null {
  const lines = (testResults ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length === 0) return null;
  return lines.find((line) => /\b(?:fail(?:ed|ure|ing|s)?|error|assert(?:ion)?|expected)\b/iu.test(line)) ?? lines[0] ?? null;
}

/** "When working on tasks like "<first sentence of the task>"", short enough for a bullet. */
function taskGist(task: string): string {
  const firstLine = task.trim().split("\n")[0] ?? "";
  const sentence = (/^.*?[.?!](?=\s|$)/u.exec(firstLine)?.[0] ?? firstLine).replace(/[.?!:;,\s]+$/u, "");
  const gist = sentence.length <= GIST_LENGTH ? sentence : `${sentence.slice(0, GIST_LENGTH).replace(/\s+\S*$/u, "")}…`;
  return gist ? `When working on tasks like "${gist}"` : "In this kind of task";
}

/** One line, at most QUOTE_LENGTH characters, with double quotes turned single so the quoting holds. */
function quote(text: string): string {
  const line = text.replace(/\s+/gu, " ").trim().replace(/"/gu, "'");
  return line.length <= QUOTE_LENGTH ? line : `${line.slice(0, QUOTE_LENGTH - 1)}…`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
