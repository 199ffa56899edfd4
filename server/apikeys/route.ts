// The one wrapper of every /api/v1 route handler (and the MCP endpoint): it resolves the API key
// (Authorization: Bearer), checks the scope the route declares and the key's rate limit, refuses
// cross-site browser posts, and maps errors to JSON with the right status. A route declares its
// scope or says why it is public; server/apikeys/routes.test.ts fails on a route that does neither.
import { recordAudit, type AuditSource } from "@/server/audit/record";
import { accessRule } from "@/server/auth/mode";
import { usersExist } from "@/server/auth/authenticate";
import { getAuthSettings } from "@/server/auth/config";
import { actorName, auditActor, LOCAL_USER, type Principal } from "@/server/auth/principal";
import { firstInWindow, hitApiKeyLimit } from "@/server/auth/rate-limit";
import { unknownHostRefusal } from "@/server/auth/hosts";
import { readRequestInfo, REQUEST_ID_HEADER, type RequestInfo } from "@/server/auth/request";
import { crossSiteRefusal } from "@/server/auth/same-origin";
import { getDb, type Db } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { servingRequest } from "@/server/http/activity";
import { requireWellFormed } from "@/server/http/body";
import { errorResponse } from "@/server/http/responses";
import { API_CSP, COMMON_SECURITY_HEADERS } from "@/server/http/security-headers";
import * as repo from "./repository";
import type { ApiScope } from "./schemas";
import { bearerToken, checkApiKey, noteKeyUsed } from "./service";

export type RouteAccess =
  { kind: "scope"; scope: ApiScope } | { kind: "public"; reason: string } | { kind: "session"; role: "viewer" | "curator" | "admin" };

/** Where a wrapped handler keeps what it requires (read by the route walk test). */
export const ROUTE_ACCESS = Symbol.for("ace-studio.route-access");

/** Next.js passes the route's params; a test calling the handler directly may leave them out. */
type RouteContext<P> = { params: Promise<P> } | undefined;

export type RouteHandler<P> = ((request: Request, context?: RouteContext<P>) => Promise<Response>) & { [ROUTE_ACCESS]: RouteAccess };

export function routeAccessOf(handler: unknown): RouteAccess | null {
  if (typeof handler !== "function") return null;
  const access = (handler as unknown as Record<symbol, unknown>)[ROUTE_ACCESS];
  return access && typeof access === "object" ? (access as RouteAccess) : null;
}

export function markRoute<P>(
  access: RouteAccess,
  handler: (request: Request, context?: RouteContext<P>) => Promise<Response>,
): RouteHandler<P> {
  return Object.assign(handler, { [ROUTE_ACCESS]: access });
}

export interface ApiContext<P> {
  params: P;
  db: Db;
  /** An API key, or the local operator where the ACE_AUTH table needs no key. */
  principal: Principal;
  /** The author name of changes made through this request. */
  actor: string;
  audit: AuditSource;
  request: RequestInfo;
  /** Refuses (403) unless the key may touch every named playbook. Call it before reading or writing them. */
  allowPlaybooks(names: readonly string[]): Promise<void>;
}

function problem(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: { code, message, details: null } }, { status, headers: { "cache-control": "no-store", ...headers } });
}

/** Methods that change something: their body must be JSON (a form or text/plain post is a browser's). */
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A change whose body is not declared as JSON is refused (415) before anything else: an HTML form
 * on any site can post text/plain or form data to a laptop's studio without a CORS preflight, but
 * not application/json. A body-less DELETE needs no type.
 */
function mediaTypeRefusal(request: Request): Response | null {
  if (!WRITE_METHODS.has(request.method.toUpperCase())) return null;
  const type = request.headers.get("content-type");
  if (type === null && request.method.toUpperCase() === "DELETE") return null;
  const essence = type?.split(";", 1)[0]?.trim().toLowerCase();
  if (essence === "application/json") return null;
  return problem(
    415,
    "UNSUPPORTED_MEDIA_TYPE",
    `Send the body as JSON with Content-Type: application/json${type ? ` (this request said ${type.slice(0, 100)})` : " (this request named no type)"}. Nothing was stored.`,
  );
}

const NEEDS_KEY =
  "This request needs an API key: send Authorization: Bearer <key>. An admin creates keys in Settings → API keys, or with: npm run ace -- apikey create.";

/**
 * Wraps a route handler. `scope`: what the caller's key must hold. `public`: no key at all, with the
 * reason (only documents such as openapi.json).
 */
export interface PublicApiContext<P> {
  params: P;
  request: RequestInfo;
}

/**
 * Wraps a route handler. `scope`: what the caller's key must hold. `public`: no key at all, with the
 * reason (only documents such as openapi.json); such a handler gets no database.
 */
export function apiRoute<P = Record<string, never>>(
  access: { public: string },
  handler: (request: Request, ctx: PublicApiContext<P>) => Promise<Response>,
): RouteHandler<P>;
export function apiRoute<P = Record<string, never>>(
  access: { scope: ApiScope },
  handler: (request: Request, ctx: ApiContext<P>) => Promise<Response>,
): RouteHandler<P>;
export function apiRoute<P>(
  access: { scope: ApiScope } | { public: string },
  handler:
    ((request: Request, ctx: ApiContext<P>) => Promise<Response>) | ((request: Request, ctx: PublicApiContext<P>) => Promise<Response>),
): RouteHandler<P> {
  if ("public" in access) {
    const publicHandler = handler as (request: Request, ctx: PublicApiContext<P>) => Promise<Response>;
    return markRoute<P>({ kind: "public", reason: access.public }, (request, context) =>
      answer(request, async (info) => publicHandler(request, { params: await wellFormedParams(request, context), request: info })),
    );
  }
  const scopedHandler = handler as (request: Request, ctx: ApiContext<P>) => Promise<Response>;
  const scope = access.scope;
  return markRoute<P>({ kind: "scope", scope }, (request, context) =>
    answer(request, async (info) => {
      const unsupported = mediaTypeRefusal(request);
      if (unsupported) return unsupported;
      const params = await wellFormedParams(request, context);
      const db = await getDb();
      const settings = getAuthSettings();
      const token = bearerToken(request.headers);
      let principal: Principal;
      if (token === null) {
        // No key: a browser could be behind this (a form on another site posting to a laptop's studio).
        const crossSite = crossSiteRefusal(request.method, request.headers);
        if (crossSite) return problem(403, "FORBIDDEN", crossSite);
        const rule = accessRule({
          mode: settings.mode,
          loopbackBound: info.loopbackBound,
          localRequest: info.local,
          usersExist: await usersExist(db),
        });
        if (!rule.localAdmin) return problem(401, "UNAUTHORIZED", NEEDS_KEY, { "www-authenticate": 'Bearer realm="ace-studio"' });
        principal = { kind: "local", name: LOCAL_USER };
      } else {
        const check = await checkApiKey(db, token, settings);
        if (!check.ok) {
          if (check.key) await auditRefusal(db, info, { kind: "apikey", id: check.key.id, name: check.key.name }, request, check.message);
          return problem(401, "UNAUTHORIZED", check.message, { "www-authenticate": 'Bearer realm="ace-studio", error="invalid_token"' });
        }
        principal = check.principal;
        if (!check.principal.scopes.includes(scope)) {
          const message =
            `API key "${check.principal.name}" does not have the scope "${scope}" this route needs ` +
            `(it has: ${check.principal.scopes.join(", ")}). An admin can create a key with it; keys cannot be widened.`;
          await auditRefusal(db, info, auditActor(principal), request, message);
          return problem(403, "FORBIDDEN", message, {
            "www-authenticate": `Bearer realm="ace-studio", error="insufficient_scope", scope="${scope}"`,
          });
        }
        const limit = check.rateLimitPerMinute ?? settings.apiRateLimitPerMinute;
        const hit = await hitApiKeyLimit(db, check.principal.keyId, limit);
        if (!hit.allowed) {
          return problem(
            429,
            "RATE_LIMITED",
            `API key "${check.principal.name}" made more than ${limit} requests this minute. Wait ${hit.retryAfterSeconds} s (Retry-After), or ask an admin for a higher limit on this key.`,
            { "retry-after": String(hit.retryAfterSeconds) },
          );
        }
        if (hit.first) await noteKeyUsed(db, check.principal.keyId);
      }
      const ctx = contextOf(params, db, principal, info);
      try {
        return await scopedHandler(request, ctx);
      } catch (error) {
        if (error instanceof AppError && error.code === "FORBIDDEN") await auditRefusal(db, info, ctx.audit.actor, request, error.message);
        throw error;
      }
    }),
  );
}

/**
 * Runs a handler as proxy.ts runs the studio's pages, which the agents' API skips (its matcher
 * says why): a Host that is not this studio's is refused (DNS rebinding), errors become JSON with
 * their status, and every answer carries the request's id and the security headers.
 */
function answer(request: Request, respond: (info: RequestInfo) => Promise<Response>): Promise<Response> {
  return servingRequest(() => answerNow(request, respond));
}

async function answerNow(request: Request, respond: (info: RequestInfo) => Promise<Response>): Promise<Response> {
  const settings = getAuthSettings();
  const info = readRequestInfo(request.headers, settings);
  // A Request made in this process (a test, a script) has no Host; every received one has.
  const refusal = request.headers.has("host") ? unknownHostRefusal(request.headers, settings.allowedHosts) : null;
  let response: Response;
  if (refusal) {
    response = new Response(refusal, {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  } else {
    try {
      response = await respond(info);
    } catch (error) {
      response = withRetryAfter(error, errorResponse(error));
    }
  }
  return withApiHeaders(response, info.id);
}

function withApiHeaders(response: Response, requestId: string): Response {
  try {
    setApiHeaders(response.headers, requestId);
    return response;
  } catch {
    // A Response made by Response.redirect() or fetch() has headers that cannot change: copy it.
    const copy = new Response(response.body, response);
    setApiHeaders(copy.headers, requestId);
    return copy;
  }
}

function setApiHeaders(headers: Headers, requestId: string): void {
  headers.set("content-security-policy", API_CSP);
  headers.set(REQUEST_ID_HEADER, requestId);
  for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) headers.set(name, value);
}

/**
 * The route's path parameters, refused (400 naming the parameter) like a body when they, or the query
 * parameters, hold what the databases cannot store: a playbook name in the path or the query is
 * looked up, and PostgreSQL cannot compare text holding a NUL.
 */
export async function wellFormedParams<P>(request: Request, context: RouteContext<P>): Promise<P> {
  const params = await paramsOf(context);
  requireWellFormed(params);
  requireWellFormed(Object.fromEntries(new URL(request.url).searchParams));
  return params;
}

export async function paramsOf<P>(context: RouteContext<P>): Promise<P> {
  return context ? await context.params : ({} as P);
}

function contextOf<P>(params: P, db: Db, principal: Principal, request: RequestInfo): ApiContext<P> {
  const audit: AuditSource = { actor: auditActor(principal), requestId: request.id, ip: request.ip };
  return {
    params,
    db,
    principal,
    actor: actorName(principal),
    audit,
    request,
    async allowPlaybooks(names) {
      if (principal.kind !== "apikey" || principal.playbookIds === "all") return;
      const allowed = new Set(principal.playbookIds);
      const wanted = [...new Set(names)];
      const ids = await repo.playbookIdsByName(db, wanted);
      const refused = wanted.filter((name) => {
        const id = ids.get(name);
        return !id || !allowed.has(id);
      });
      if (refused.length > 0) {
        const list = refused.map((name) => `"${name}"`).join(", ");
        throw new AppError(
          "FORBIDDEN",
          `API key "${principal.name}" may not touch the playbook${refused.length === 1 ? "" : "s"} ${list}. An admin can create a key that may.`,
          { details: { playbooks: refused } },
        );
      }
    },
  };
}

/** Refusals of a known key are audited, once a minute per key and route so a misconfigured agent does not flood the log. */
async function auditRefusal(db: Db, info: RequestInfo, actor: AuditSource["actor"], request: Request, message: string): Promise<void> {
  const path = new URL(request.url).pathname;
  if (!(await firstInWindow(db, `api-denied:${actor.id ?? actor.name}:${request.method}:${path}`))) return;
  await recordAudit(
    db,
    { actor, requestId: info.id, ip: info.ip },
    { action: "access.denied", target: { type: "route", id: `${request.method} ${path}` }, after: { reason: message } },
  );
}

function withRetryAfter(error: unknown, response: Response): Response {
  if (error instanceof AppError && error.code === "RATE_LIMITED" && typeof error.details?.retryAfterSeconds === "number") {
    response.headers.set("retry-after", String(error.details.retryAfterSeconds));
  }
  return response;
}
