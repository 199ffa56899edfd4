// What each control of the studio needs: the role its procedure declares (server/<domain>/router.ts,
// viewerProcedure < curatorProcedure < adminProcedure). Pages hide or disable what the person's role
// cannot do; the server checks every call regardless. permissions.test.ts holds this table to the
// procedures' declared roles, so a change on the server shows up here.
import { ROLE_LABELS, roleAtLeast, type Identity, type Role } from "@/server/auth/schemas";

export const ACTIONS = {
  "playbook.create": { role: "curator", procedures: ["playbook.create"] },
  "playbook.import": { role: "curator", procedures: ["playbook.import"] },
  "playbook.settings": { role: "admin", procedures: ["playbook.updateSettings"] },
  "playbook.rollback": { role: "curator", procedures: ["history.rollback"] },
  /** Add, edit, move and archive bullets; add and rename sections. */
  "bullet.edit": { role: "curator", procedures: ["delta.edit"] },
  /** Approve, reject, edit an operation, undo, rebase, bulk decisions. */
  "delta.review": {
    role: "curator",
    procedures: ["delta.approve", "delta.reject", "delta.updateOperation", "delta.bulk", "delta.undo", "delta.rebase"],
  },
  "delta.prune": { role: "curator", procedures: ["delta.proposePruning"] },
  /** Reflect now, curate now, retry a run, pause and resume. */
  "run.start": { role: "curator", procedures: ["runs.reflectNow", "runs.curateNow", "runs.retry", "runs.setPaused"] },
  /** Create, start, stop, reweight and ship experiments. */
  "experiment.manage": {
    role: "curator",
    procedures: ["experiments.create", "experiments.update", "experiments.decide", "experiments.archive"],
  },
  "budget.studio": { role: "admin", procedures: ["runs.setStudioBudget"] },
  /** Dry-run redaction settings on a playbook's newest traces before saving them. */
  "redaction.preview": { role: "curator", procedures: ["traces.redactionPreview"] },
  /** Find, export and delete a person's traces (a subject-access or deletion request). */
  "traces.erase": { role: "admin", procedures: ["traces.selectionSummary", "traces.exportSelection", "traces.deleteSelection"] },
  "users.manage": { role: "admin", procedures: ["users.list", "users.invite", "users.setRole", "users.disable", "users.delete"] },
  "apikeys.manage": { role: "admin", procedures: ["apiKeys.list", "apiKeys.create", "apiKeys.revoke", "apiKeys.transfer"] },
  "audit.read": { role: "admin", procedures: ["audit.list"] },
  /** Change the studio retention default; run retention now. */
  "retention.manage": { role: "admin", procedures: ["retention.setStudioDefault", "retention.runNow"] },
  "storage.read": { role: "admin", procedures: ["storage.report"] },
} as const satisfies Record<string, { role: Role; procedures: readonly string[] }>;

export type Action = keyof typeof ACTIONS;

/** Whether this identity may take the action (the local operator is an admin; nobody signed out may). */
export function allows(identity: Identity, action: Action): boolean {
  return identity.kind !== "anonymous" && roleAtLeast(identity.role, ACTIONS[action].role);
}

/** The tooltip of a control the identity may not use: which role it needs, and the one they have. */
export function roleNeeded(identity: Identity, action: Action): string {
  const need = ACTIONS[action].role;
  const article = need === "admin" ? "an" : "a";
  if (identity.kind === "anonymous") return `Sign in as ${article} ${need} to do this.`;
  return `Needs the ${ROLE_LABELS[need].toLowerCase()} role; you are ${identity.role === "admin" ? "an" : "a"} ${identity.role}.`;
}
