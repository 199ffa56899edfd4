// Who a request acts for: a session cookie, an API key, or (by the ACE_AUTH table) the local
// operator. Pages, tRPC and the route handlers all ask here; nothing else reads credentials.
import { checkApiKey, bearerToken } from "@/server/apikeys/service";
import type { Db } from "@/server/db/client";
import { getAuthSettings, type AuthSettings } from "./config";
import { readSessionToken, sessionCookie } from "./cookies";
import { accessRule } from "./mode";
import { ANONYMOUS, LOCAL_USER, type Principal } from "./principal";
import * as repo from "./repository";
import { readRequestInfo, type RequestInfo } from "./request";
import type { Gate } from "./schemas";
import { validateSession } from "./sessions";

export interface Authentication {
  principal: Principal;
  request: RequestInfo;
  /** What the UI must show first when the principal is anonymous. */
  gate: Gate;
  /** The studio runs without sign-in (no accounts, loopback only, or ACE_AUTH=off). */
  localMode: boolean;
  usersExist: boolean;
  /** A refreshed session cookie to send back (the session's expiry moved forward). */
  setCookie: string | null;
  /** Why a bearer credential was refused, when one was sent and refused. */
  credentialProblem: { message: string; key: { id: string; name: string } | null } | null;
}

/** Asked on every request (one index lookup): the first account must end local mode at once, on every instance. */
export function usersExist(db: Db): Promise<boolean> {
  return repo.anyUserExists(db);
}

export function localPrincipal(name = LOCAL_USER): Principal {
  return { kind: "local", name };
}

/**
 * The principal of a browser or tRPC request: a valid session cookie; else a bearer API key (the
 * CLI against a running server); else the local operator when the ACE_AUTH table allows; else anonymous.
 */
export async function authenticate(
  db: Db,
  headers: Headers,
  options: { settings?: AuthSettings; request?: RequestInfo } = {},
): Promise<Authentication> {
  const settings = options.settings ?? getAuthSettings();
  const request = options.request ?? readRequestInfo(headers, settings);
  const exist = await usersExist(db);
  const rule = accessRule({ mode: settings.mode, loopbackBound: request.loopbackBound, localRequest: request.local, usersExist: exist });
  const base = { request, gate: rule.gate, localMode: rule.localAdmin, usersExist: exist, setCookie: null, credentialProblem: null };

  const token = readSessionToken(headers);
  if (token) {
    const session = await validateSession(db, token, settings);
    if (session) {
      return {
        ...base,
        principal: session.principal,
        gate: "open",
        localMode: false,
        setCookie: session.extendedTo ? sessionCookie(token, session.extendedTo, request.https) : null,
      };
    }
  }

  const bearer = bearerToken(headers);
  if (bearer !== null) {
    const check = await checkApiKey(db, bearer, settings);
    if (check.ok) return { ...base, principal: check.principal, gate: "open", localMode: false };
    // A key that was sent is checked even where none is needed: a revoked key fails loudly.
    return { ...base, principal: ANONYMOUS, localMode: false, credentialProblem: { message: check.message, key: check.key } };
  }

  return { ...base, principal: rule.localAdmin ? localPrincipal() : ANONYMOUS };
}
