// The format-neutral playbook every parser produces and every serializer consumes.
// Pure data: no framework imports. Fields a format cannot express are simply absent.

export const PLAYBOOK_FORMATS = ["ace", "ace-plain", "kayba", "json"] as const;
export type PlaybookFormat = (typeof PLAYBOOK_FORMATS)[number];

export const BULLET_STATUSES = ["active", "archived"] as const;
export type BulletStatus = (typeof BULLET_STATUSES)[number];

export interface BulletCounters {
  helpful: number;
  harmful: number;
  neutral: number;
}

/** A bullet's counters as the engine keeps them: zeros, and countersKnown false, when the source had none. */
export function countersOf(bullet: Pick<BulletDoc, "counters">): BulletCounters & { countersKnown: boolean } {
  const { counters } = bullet;
  return {
    helpful: counters?.helpful ?? 0,
    harmful: counters?.harmful ?? 0,
    neutral: counters?.neutral ?? 0,
    countersKnown: counters !== null,
  };
}

export interface BulletDoc {
  /** Stable ACE id, e.g. "str-00001". */
  id: string;
  content: string;
  /** null when the source had no counters (ace-plain). */
  counters: BulletCounters | null;
  status: BulletStatus;
  justification?: string;
  evidence?: string;
  archivedReason?: string;
  mergedInto?: string;
  /** Ranked first in the compiled context; only ACE Studio's own JSON carries it. */
  pinned?: boolean;
  /** ISO timestamps when the source carried them. */
  createdAt?: string;
  updatedAt?: string;
  /** Source fields ACE Studio does not model, kept for a lossless export (kayba: embedding, sources, raw timestamps, key order). */
  extra?: Record<string, unknown>;
  /** Blank lines before this bullet in a text source. */
  blankLinesBefore?: number;
  /** Provenance, carried by ACE Studio's own JSON. */
  origin?: "import" | "manual" | "curator";
  sourceTraceId?: string;
  sourceRunId?: string;
}

export interface SectionDoc {
  /** Display name exactly as the source wrote it. */
  name: string;
  /** Id prefix for new bullets in this section, e.g. "str". */
  slug: string;
  bullets: BulletDoc[];
  /** Blank lines before the header in a text source. */
  blankLinesBefore?: number;
}

export interface PlaybookDocument {
  name?: string;
  description?: string;
  agentLabel?: string;
  sections: SectionDoc[];
  /** Highest numeric id suffix in use or announced by the source (kayba next_id). */
  lastIdNumber?: number;
  /** Format-specific layout kept so an export in the source format is byte-identical. */
  hints: DocumentHints;
  /** ACE Studio's own JSON carries settings too. */
  settings?: Record<string, unknown>;
}

export interface DocumentHints {
  /** Text formats: whether the file ended with a newline. */
  trailingNewline?: boolean;
  /** Text formats: blank lines after the last line. */
  trailingBlankLines?: number;
  /** Text formats: "\r\n" when the source used Windows line endings. */
  lineEnding?: "\n" | "\r\n";
  /** Text formats: the source began with a byte order mark (U+FEFF). */
  byteOrderMark?: boolean;
  /**
   * Text formats: the file ends as Python's str.strip() leaves it, its last line without the trailing
   * space (the ACE authors' code strips a playbook, so an empty last bullet ends in "::").
   */
  trimmedEnd?: boolean;
  /** kayba, as stored before kaybaExtraText: top-level keys other than skills/bullets/sections/next_id, with their values. */
  kaybaExtra?: Record<string, unknown>;
  /** kayba: top-level keys other than skills/bullets/sections/next_id, each value as compact JSON text (key order and number spelling kept). */
  kaybaExtraText?: Record<string, string>;
  /** kayba: the order of the skills object's keys, when it differs from the reading order (sections, then ids). */
  kaybaSkillOrder?: string[];
  /** kayba: false when the skills carried no helpful/harmful/neutral (kayba 0.9.3 and later). */
  kaybaCounters?: boolean;
  /** kayba: "skills" (newer) or "bullets" (older). */
  kaybaCollection?: "skills" | "bullets";
  /** kayba: the key order of the top-level object. */
  kaybaKeyOrder?: string[];
  /** kayba: next_id as written by the source. */
  kaybaNextId?: number;
}
