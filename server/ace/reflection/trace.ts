// One agent run as the Reflector sees it (the task, the agent's reasoning and output, the feedback
// from its environment, the bullets it cited), and the readings of it that the prompt and the
// offline reflector share.

export type TraceOutcome = "success" | "failure" | "unknown";

export interface TraceFeedback {
  /** The expected answer, when the task has one; switches the prompt to its ground-truth variant. */
  groundTruth?: string;
  /** Tool and execution errors, one per entry. */
  errors?: string[];
  testResults?: string;
  notes?: string;
}

export interface ReflectorTrace {
  task: string;
  reasoning: string;
  output: string;
  outcome: TraceOutcome;
  feedback: TraceFeedback;
  /** Bullet ids the agent cited, as extracted from its reasoning and output (ids.ts extractBulletIds). */
  citedBulletIds: string[];
}

/** A cited bullet as found in the playbook. */
export interface CitedBullet {
  externalId: string;
  section: string;
  content: string;
  helpful: number;
  harmful: number;
  neutral: number;
}

/** The cited bullets the playbook has, in citation order and each once, and the cited ids it lacks. */
export function knownCitations(trace: ReflectorTrace, bullets: readonly CitedBullet[]): { known: CitedBullet[]; unknownIds: string[] } {
  const byId = new Map(bullets.map((bullet) => [bullet.externalId, bullet]));
  const known: CitedBullet[] = [];
  const unknownIds: string[] = [];
  for (const id of new Set(trace.citedBulletIds)) {
    const bullet = byId.get(id);
    if (bullet) known.push(bullet);
    else unknownIds.push(id);
  }
  return { known, unknownIds };
}

/** The task's expected answer, or null when there is none (or only whitespace). */
export function groundTruthOf(trace: ReflectorTrace): string | null {
  const groundTruth = trace.feedback.groundTruth?.trim();
  return groundTruth ? groundTruth : null;
}

/** The run's errors in order, each once: the same message with other case or spacing counts once. */
export function distinctErrors(errors: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const error of errors ?? []) {
    const text = error.trim();
    const key = normalizeAnswer(text);
    if (text === "" || seen.has(key)) continue;
    seen.add(key);
    result.push(text);
  }
  return result;
}

/**
 * Answers compared loosely: NFKC, case, whitespace, surrounding quotes and a final period do not
 * count, so `"Paris."` equals `paris`.
 */
export function normalizeAnswer(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/gu, " ")
    .trim()
    .replace(/^["'`“”‘’]+|["'`“”‘’]+$/gu, "")
    .replace(/[.!]+$/u, "")
    .trim();
}
