// The general form of an offline lesson: what a failed run teaches any task of its kind, without
// the instance it failed on (the customer, the order number, the id, the amount). The offline
// reflector writes lessons in this form; the offline curator groups lessons by it, one per pattern,
// and brings lessons that older reflections stored with their task into it.

/** A wrong answer in another form than the expected one (decimals, date format, units). */
export const ANSWER_FORM_LESSON =
  "Give the final answer in exactly the form the task expects (number of decimal places, date format, units, list separators); compare it with what the task asks before finishing.";

/** A wrong answer in the expected form: the value itself was wrong. */
export const ANSWER_VALUE_LESSON =
  "Before finishing, recompute the answer from all the data the task covers (every page, every matching item) and check it against what the task asks; do not report a partial or estimated result.";

/** Failing tests at the end of a run. */
export const FAILING_TESTS_LESSON =
  "Run the task's tests before finishing and fix every failure they report; do not finish while a test fails.";

/** The lesson a tool or execution error teaches, with the instance details of the error masked. */
export function errorLesson(error: string, task = ""): string {
  return `Anticipate and handle the error "${withoutInstance(error, task)}" instead of repeating the step that caused it.`;
}

/** An HTTP status code (100–599) names a kind of failure, not an instance; other numbers are instances. */
const STATUS_CODE = /^[1-5]\d\d$/u;
const EMAIL = /[^\s'"<>@]+@[^\s'"<>@]+/gu;
const URL = /\bhttps?:\/\/[^\s'"<>]+/giu;
// A token that mixes letters and digits: an id when it has 3 or more digits or is 8+ characters
// long ("ord_1003", "sub_8f3a91c2", a UUID); short technical names stay ("utf-8", "gpt-4", "base64").
const MIXED_TOKEN = /(?<![\w<>-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]+(?![\w<>-])/gu;
// Not the digits of a name such as "utf-8" (a letter and a hyphen before them).
const NUMBER = /(?<![\w<>.]|[A-Za-z]-)\d+(?:[.,]\d+)*(?![\w<>])/gu;
const QUOTED = /'([^']{1,80})'/gu;

/**
 * The text with what belongs to one task instance replaced by placeholders: e-mail addresses
 * (<email>), URLs (<url>), ids (<id>), numbers (<n>, except HTTP status codes that the task does not
 * mention) and single-quoted values the task itself contains (<value>). "Order 1003 not found"
 * becomes "Order <n> not found", so the same failure on other orders is one lesson.
 */
export function withoutInstance(text: string, task = ""): string {
  const taskText = task.toLowerCase();
  return text
    .replace(URL, "<url>")
    .replace(EMAIL, "<email>")
    .replace(MIXED_TOKEN, (token) => {
      const digits = token.replace(/\D/gu, "").length;
      return digits >= 3 || token.length >= 8 ? "<id>" : token;
    })
    .replace(NUMBER, (number) => (STATUS_CODE.test(number) && !taskText.includes(number) ? number : "<n>"))
    .replace(QUOTED, (quoted, value: string) => (taskText !== "" && taskText.includes(value.toLowerCase()) ? "'<value>'" : quoted));
}

// How the offline reflector wrote lessons before they had a general form: a task prefix, then a
// wrong-answer, failing-tests or error lesson about that one run.
const TASK_PREFIX = /^(?:When working on tasks like ".*?"|In this kind of task): (?=\S)/u;
const LEGACY_ANSWER = /^give the answer as /iu;
const LEGACY_TESTS = /^run the tests before finishing/iu;

/**
 * A lesson's general form: the one it carries or, for a lesson stored before lessons had one, the
 * general lesson its content stands for (its text without the task prefix when it is none of the
 * known kinds). Instance details left in it are masked (withoutInstance).
 */
export function generalLesson(lesson: { content: string; general?: string }): string {
  if (lesson.general?.trim()) return withoutInstance(lesson.general.trim());
  const stripped = lesson.content.trim().replace(TASK_PREFIX, "");
  if (LEGACY_ANSWER.test(stripped)) return ANSWER_FORM_LESSON;
  if (LEGACY_TESTS.test(stripped)) return FAILING_TESTS_LESSON;
  return withoutInstance(stripped.charAt(0).toUpperCase() + stripped.slice(1));
}
