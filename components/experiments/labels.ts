// Words and colours of the experiment pages, in one place so a status or a verdict reads the same
// in the list, the results table, its bars and the playbook's card. Colour is never the only cue:
// every verdict also has its words.
import type { BadgeTone } from "@/components/ui/badge";

/**
 * What a comparison says about a variant against the control: significantly better or worse (by
 * the metric's direction: a higher success rate is better, a higher cost is worse), not conclusive
 * yet, or nothing to compare (the control itself, or no data).
 */
export type Verdict = "better" | "worse" | "inconclusive" | "none";

export const VERDICT_COLORS: Record<Verdict, string> = {
  better: "#059669",
  worse: "#e11d48",
  inconclusive: "#6366f1",
  none: "#94a3b8",
};

export const VERDICT_META: Record<Verdict, { label: string; tone: BadgeTone }> = {
  better: { label: "Significantly better", tone: "green" },
  worse: { label: "Significantly worse", tone: "red" },
  inconclusive: { label: "Not significant", tone: "gray" },
  none: { label: "—", tone: "neutral" },
};
