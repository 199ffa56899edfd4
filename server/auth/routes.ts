// The wrapper of the studio's own route handlers outside tRPC (file downloads: a playbook export,
// the audit CSV): a session (or the local operator) of the declared role, as tRPC procedures need.
import { checkPlaybookTarget, type PlaybookTarget } from "@/server/access/restriction";
import { markRoute, wellFormedParams, type RouteHandler } from "@/server/apikeys/route";
import { getDb, type Db } from "@/server/db/client";
import { errorResponse } from "@/server/http/responses";
import { authenticate } from "./authenticate";
import { authorize, type Principal } from "./principal";
import { crossSiteRefusal } from "./same-origin";
import type { Role } from "./schemas";

export interface SessionRouteContext<P> {
  params: P;
  db: Db;
  principal: Principal;
  /** Refuses (403) a caller restricted to other playbooks; call it once the request is parsed, before reading. */
  allowPlaybooks(target: PlaybookTarget): Promise<void>;
}

export function sessionRoute<P = Record<string, never>>(
  access: { role: Role },
  handler: (request: Request, ctx: SessionRouteContext<P>) => Promise<Response>,
): RouteHandler<P> {
  return markRoute<P>({ kind: "session", role: access.role }, async (request, context) => {
    try {
      const crossSite = crossSiteRefusal(request.method, request.headers);
      if (crossSite) return Response.json({ error: { code: "FORBIDDEN", message: crossSite, details: null } }, { status: 403 });
      const params = await wellFormedParams(request, context);
      const db = await getDb();
      const auth = await authenticate(db, request.headers);
      const verdict = authorize(auth.principal, access.role);
      if (!verdict.ok) {
        const message = auth.credentialProblem?.message ?? verdict.message;
        return Response.json(
          { error: { code: verdict.code, message, details: null } },
          { status: verdict.code === "UNAUTHORIZED" ? 401 : 403 },
        );
      }
      return await handler(request, {
        params,
        db,
        principal: auth.principal,
        allowPlaybooks: (target) => checkPlaybookTarget(db, auth.principal, target),
      });
    } catch (error) {
      return errorResponse(error);
    }
  });
}
