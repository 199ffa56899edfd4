// Who needs to sign in (issue 11, §4): the one table of ACE_AUTH, the listening address and
// whether any account exists, as a pure function.
import type { AuthMode } from "./config";
import type { Gate } from "./schemas";

export interface AccessSituation {
  mode: AuthMode;
  /** The server listens on a loopback address only. */
  loopbackBound: boolean;
  /** This request came straight from this computer: a loopback peer and no forwarding headers. */
  localRequest: boolean;
  usersExist: boolean;
}

/**
 * local-admin: no sign-in and no API key; the request acts as the local admin (audited as local).
 * Otherwise the UI needs a session (the gate says which page to show) and /api/v1 needs a key.
 *
 * | ACE_AUTH | bound to      | users | UI                      | /api/v1 |
 * | auto     | loopback      | no    | local admin             | open    |
 * | auto     | loopback      | yes   | sign-in                 | keys    |
 * | auto     | other         | any   | as on                   | as on   |
 * | on       | any           | no    | first admin (setup token) | keys  |
 * | on       | any           | yes   | sign-in                 | keys    |
 * | off      | loopback only | any   | local admin             | open    |
 *
 * A request with forwarding headers is not local, so a reverse proxy in front of a loopback-bound
 * studio does not turn the network into the local operator. ACE_AUTH=off on a server that is not
 * loopback-bound (start-up refuses it) falls back to "on".
 */
export function accessRule(situation: AccessSituation): { localAdmin: boolean; gate: Gate } {
  const { mode, loopbackBound, localRequest, usersExist } = situation;
  const signInGate: Gate = usersExist ? "sign-in" : "first-admin";
  if (mode === "off") return loopbackBound ? { localAdmin: true, gate: "open" } : { localAdmin: false, gate: signInGate };
  if (mode === "auto" && loopbackBound && localRequest && !usersExist) return { localAdmin: true, gate: "open" };
  return { localAdmin: false, gate: signInGate };
}
