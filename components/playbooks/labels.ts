// Words and colours the UI uses for formats and signals, in one place so every view agrees.
import type { BadgeTone } from "@/components/ui/badge";
import type { BulletSignal, PlaybookFormat } from "@/server/playbooks/schemas";

export const FORMAT_LABELS: Record<PlaybookFormat, string> = {
  ace: "ACE text with counters",
  "ace-plain": "ACE text without counters",
  kayba: "kayba JSON skillbook",
  json: "ACE Studio JSON",
};

/** Short names for tables and badges. */
export const FORMAT_SHORT: Record<PlaybookFormat, string> = {
  ace: "ACE",
  "ace-plain": "ACE plain",
  kayba: "kayba",
  json: "JSON",
};

export const FORMAT_EXTENSIONS: Record<PlaybookFormat, string> = {
  ace: ".txt",
  "ace-plain": ".txt",
  kayba: ".json",
  json: ".json",
};

export interface SignalMeta {
  label: string;
  tone: BadgeTone;
  /** The rule that put a bullet in this class, shown in the bullet detail. */
  rule: string;
  /** Tailwind class of the dot drawn next to the label (never the only cue). */
  dot: string;
}

export const SIGNAL_META: Record<BulletSignal, SignalMeta> = {
  high_performing: {
    label: "High performing",
    tone: "green",
    rule: "helpful > 5 and harmful < 2",
    dot: "bg-emerald-500",
  },
  problematic: {
    label: "Problematic",
    tone: "red",
    rule: "harmful ≥ helpful and harmful > 0",
    dot: "bg-rose-500",
  },
  unused: {
    label: "Unused",
    tone: "amber",
    rule: "no helpful or harmful votes yet",
    dot: "bg-amber-500",
  },
  in_use: {
    label: "In use",
    tone: "blue",
    rule: "has votes, but is neither high performing nor problematic",
    dot: "bg-sky-500",
  },
  untracked: {
    label: "No counters",
    tone: "gray",
    rule: "the source had no counters",
    dot: "bg-zinc-400",
  },
};

export const ORIGIN_LABELS = {
  import: "Imported",
  manual: "Written by hand",
  curator: "Added by the curator",
} as const;
