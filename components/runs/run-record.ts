// A run's record as the UI reads it. The server stores prompt, raw responses and output as JSON it
// does not type for the client (they differ by provider and role), so they are read here, leniently:
// whatever does not fit is still shown, as JSON.
export interface ChatTurn {
  role: string;
  content: string;
}

/** One round of a run: the messages sent to a model, or (offline) the inputs the rules read. */
export type PromptRound = { kind: "messages"; messages: ChatTurn[] } | { kind: "inputs"; value: unknown };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isTurn(value: unknown): value is ChatTurn {
  return isObject(value) && typeof value.role === "string" && typeof value.content === "string";
}

export function promptRounds(prompt: unknown): PromptRound[] {
  if (prompt === null || prompt === undefined) return [];
  const rounds = Array.isArray(prompt) ? prompt : [prompt];
  return rounds.map((round): PromptRound =>
    Array.isArray(round) && round.length > 0 && round.every(isTurn)
      ? { kind: "messages", messages: round }
      : { kind: "inputs", value: round },
  );
}

export function rawResponses(raw: unknown): string[] {
  if (raw === null || raw === undefined) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((item) => (typeof item === "string" ? item : JSON.stringify(item, null, 2)));
}

/** JSON text pretty-printed; anything else as it came. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const str = (value: unknown) => (typeof value === "string" ? value : "");
const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);

export interface BulletTagView {
  id: string;
  tag: "helpful" | "harmful" | "neutral";
  justification: string;
}

export interface LessonView {
  section: string;
  content: string;
  evidence: string;
}

export interface ReflectionView {
  reasoning: string;
  errorIdentification: string;
  rootCause: string;
  correctApproach: string;
  keyInsight: string;
  bulletTags: BulletTagView[];
  /** The offline reflector's candidate lessons (the curator's input). */
  lessons: LessonView[];
}

export function readReflection(output: unknown): ReflectionView | null {
  if (!isObject(output) || !Array.isArray(output.bulletTags)) return null;
  return {
    reasoning: str(output.reasoning),
    errorIdentification: str(output.errorIdentification),
    rootCause: str(output.rootCause),
    correctApproach: str(output.correctApproach),
    keyInsight: str(output.keyInsight),
    bulletTags: output.bulletTags.filter(isObject).map((tag) => ({
      id: str(tag.id),
      tag: tag.tag === "helpful" || tag.tag === "harmful" ? tag.tag : "neutral",
      justification: str(tag.justification),
    })),
    lessons: (Array.isArray(output.lessons) ? output.lessons : []).filter(isObject).map((lesson) => ({
      section: str(lesson.section),
      content: str(lesson.content),
      evidence: str(lesson.evidence),
    })),
  };
}

export interface CuratorOperationView {
  type: string;
  section: string;
  content: string;
  bulletIds: string[];
  rationale: string;
  confidence: number | null;
}

export interface CurationView {
  reasoning: string;
  operations: CuratorOperationView[];
  /** Operations the engine dropped or adjusted, one sentence each. */
  problems: string[];
  /** What the run did: "Delta proposed …", "Pruning: …". */
  notes: string[];
}

export function readCuration(output: unknown): CurationView | null {
  if (!isObject(output) || !Array.isArray(output.operations)) return null;
  return {
    reasoning: str(output.reasoning),
    operations: output.operations.filter(isObject).map((op) => ({
      type: str(op.type).toUpperCase(),
      section: str(op.section),
      content: str(op.content),
      bulletIds: strings(op.bulletIds),
      rationale: str(op.rationale),
      confidence: typeof op.confidence === "number" && Number.isFinite(op.confidence) ? op.confidence : null,
    })),
    problems: strings(output.problems),
    notes: strings(output.notes),
  };
}

/** "Waiting: the budget is used up" → "the budget is used up": the badge already says "Waiting". */
export function waitingReason(error: string): string {
  const rest = error.replace(/^Waiting:\s*/u, "");
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}
