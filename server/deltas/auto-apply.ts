// Which proposals may apply without a reviewer. Text that came from traces, API keys or MCP reaches
// agents only after a person approved it, and no playbook setting changes that: the auto-apply
// switch and threshold speak only for changes a signed-in person or the local operator proposes.
import type { DeltaOperation } from "@/server/ace/delta";
import type { AuditActorKind } from "@/server/audit/schemas";
import type { ProposableOrigin } from "./schemas";

/** Who sends a proposal: the kind of its audit actor. */
export type ProposerKind = AuditActorKind;

/**
 * How a delta of this origin from this proposer may apply without review:
 * - `confidence`: at or above the playbook's threshold, when its auto-apply switch is on;
 * - `counter_tags`: the reflector's counter tags (observations, no text), unless the playbook sends
 *   them to review;
 * - `never`: a person approves it.
 */
export type AutoApplyRule = "confidence" | "counter_tags" | "never";

export function autoApplyRule(origin: ProposableOrigin, proposer: ProposerKind): AutoApplyRule {
  const person = proposer === "user" || proposer === "local";
  switch (origin) {
    case "person":
    case "import":
      return person ? "confidence" : "never";
    case "reflector":
      return proposer === "system" ? "counter_tags" : "never";
    // The curator and pruning write what traces taught; an agent's lesson is an API key's or MCP's text.
    case "curator":
    case "pruning":
    case "agent":
      return "never";
  }
}

export interface AutoApplyQuestion {
  origin: ProposableOrigin;
  proposer: ProposerKind;
  operations: readonly DeltaOperation[];
  confidence: number | null;
  settings: { autoApply: boolean; autoApplyConfidence: number; tagsNeedReview: boolean };
}

/**
 * Whether the delta may apply at once, before the engine's findings and staleness are checked (any of
 * those still sends it to review), and by which rule.
 */
export function autoApplyAllowed(question: AutoApplyQuestion): AutoApplyRule {
  const { settings } = question;
  switch (autoApplyRule(question.origin, question.proposer)) {
    case "confidence":
      return settings.autoApply && question.confidence !== null && question.confidence >= settings.autoApplyConfidence
        ? "confidence"
        : "never";
    case "counter_tags":
      return !settings.tagsNeedReview && question.operations.length > 0 && question.operations.every((op) => op.type === "tag")
        ? "counter_tags"
        : "never";
    case "never":
      return "never";
  }
}
