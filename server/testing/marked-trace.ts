// The traces of the erasure tests (server/traces/copies*.int.test.ts): one whose task, reasoning,
// output and metadata carry a marker string, to be erased by its unit id, and another customer's.

/** Letters only, so a model that quotes the task's words quotes it whole. */
export const MARKER = "Zanzibarquokkamarker";
export const UNIT = "customer-jane";

/** The trace to erase: the marker in task, reasoning, output and metadata (not in the errors the offline curator learns from). */
export function markedTrace(timestamp?: Date) {
  return {
    playbook: "support",
    externalId: "jane-1",
    unitId: UNIT,
    task: `Refund the order of ${MARKER} placed yesterday. Then confirm by email.`,
    reasoning: `I looked up the order of ${MARKER} as [str-00001] says.`,
    output: `Refunded ${MARKER} in full.`,
    outcome: "failure" as const,
    citedBulletIds: ["str-00001"],
    feedback: { groundTruth: "Refund declined: outside the refund window", errors: ["HTTP 429 Too Many Requests from the billing API"] },
    metadata: { customer: MARKER, channel: "email" },
    ...(timestamp ? { timestamp: timestamp.toISOString() } : {}),
  };
}

/** Another customer's trace, read by the same curator run: it and its reflection stay. */
export const otherTrace = {
  playbook: "support",
  externalId: "other-1",
  unitId: "customer-omar",
  task: "Track parcel 77 for Omar.",
  output: "It arrives Monday.",
  outcome: "success" as const,
  citedBulletIds: ["str-00003"],
};
