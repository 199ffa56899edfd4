// What erasing or expiring traces does to the rows that copied their text. The runs that read them
// keep their row (lineage and cost charts stay true) with prompt, raw answers and output emptied and
// marked; the deltas that cite them, or that those runs proposed, keep their ids, counts and
// operations with their rationales and evidence notes rewritten. Playbook content an approved delta
// made of them is content, not a copy, and stays; audit entries never hold trace text to begin with.
import type { Tx } from "@/server/db/client";
import * as repo from "./repository";

export type CopyRemovalReason = "erasure" | "retention";

const NOTICES: Record<CopyRemovalReason, repo.CopyNotices> = {
  erasure: {
    reason: "erasure",
    deltaRationale:
      "Rationale removed with the erasure of %1$s of the traces it cites (its evidence: %2$s traces, %3$s runs; %4$s operations).",
    operationRationale: "Removed with the erasure of a trace it came from.",
    versionReason: "[rationale removed with the erasure of a trace it came from]",
  },
  retention: {
    reason: "retention",
    deltaRationale:
      "Rationale removed when %1$s of the traces it cites expired under retention (its evidence: %2$s traces, %3$s runs; %4$s operations).",
    operationRationale: "Removed when a trace it came from expired under retention.",
    versionReason: "[rationale removed when a trace it came from expired under retention]",
  },
};

/** The reason a run was redacted for, as its column holds it. */
export function copyRemovalReason(stored: string): CopyRemovalReason {
  return stored === "retention" ? "retention" : "erasure";
}

/** Inside the transaction that deletes the traces: their copies go with them, or nothing does. */
export function removeTraceCopies(
  tx: Tx,
  playbookId: string,
  traceIds: readonly string[],
  reason: CopyRemovalReason,
  at = new Date(),
): Promise<{ runs: number; deltas: number }> {
  return repo.removeTraceCopies(tx, playbookId, traceIds, NOTICES[reason], at);
}
