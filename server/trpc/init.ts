// All tRPC setup in one place: 1. context, 2. initialisation and error formatting, 3. procedures,
// each of which declares who may call it (deny by default: see server/trpc/access.test.ts).
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import { findIllFormed, type NulAllowance } from "@/server/ace/well-formed";
import { playbookRefusal, type PlaybookAddress } from "@/server/access/restriction";
import type { AuditSource } from "@/server/audit/record";
import { recordAudit } from "@/server/audit/record";
import { authenticate } from "@/server/auth/authenticate";
import { actorName, auditActor, authorize, type Principal } from "@/server/auth/principal";
import { firstInWindow } from "@/server/auth/rate-limit";
import { internalRequest, type RequestInfo } from "@/server/auth/request";
import type { Role } from "@/server/auth/schemas";
import { getDb, type Db } from "@/server/db/client";
import { AppError, HTTP_STATUS, type AppErrorCode } from "@/server/errors/app-error";
import { isStorageFull, storageFullError } from "@/server/errors/storage-full";

// ---- 1. Context --------------------------------------------------------------------------

export interface Context {
  db: Db;
  /** Who the request acts for: a signed-in user, an API key (admin scope), the local operator, or nobody. */
  principal: Principal;
  /** The name version history records as the author of a change: the user's name, "local user", … */
  actor: string;
  /** Who and where for audit entries: recordAudit(tx, ctx.audit, …). */
  audit: AuditSource;
  request: RequestInfo;
  /** Response headers (the session cookie); null for in-process callers. */
  resHeaders: Headers | null;
  /** Why a sent API key was refused, to say so instead of "sign in". */
  credentialProblem: string | null;
}

/** A context for a principal: the HTTP handler's, a server-side caller's (tests, the CLI). */
export function contextFor(
  db: Db,
  principal: Principal,
  extra: { request?: RequestInfo; resHeaders?: Headers | null; credentialProblem?: string | null } = {},
): Context {
  const request = extra.request ?? internalRequest();
  return {
    db,
    principal,
    actor: actorName(principal),
    audit: { actor: auditActor(principal), requestId: request.id, ip: request.ip },
    request,
    resHeaders: extra.resHeaders ?? null,
    credentialProblem: extra.credentialProblem ?? null,
  };
}

export async function createTRPCContext(opts: { headers: Headers; resHeaders?: Headers }): Promise<Context> {
  const db = await getDb();
  const auth = await authenticate(db, opts.headers);
  if (auth.setCookie) opts.resHeaders?.append("set-cookie", auth.setCookie);
  return contextFor(db, auth.principal, {
    request: auth.request,
    resHeaders: opts.resHeaders ?? null,
    credentialProblem: auth.credentialProblem?.message ?? null,
  });
}

// ---- 2. Initialisation -------------------------------------------------------------------

const TRPC_CODE: Record<AppErrorCode, TRPCError["code"]> = {
  NOT_FOUND: "NOT_FOUND",
  INVALID_INPUT: "BAD_REQUEST",
  CONFLICT: "CONFLICT",
  BUSY: "SERVICE_UNAVAILABLE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  // tRPC has no 507: the formatter and app/api/trpc's responseMeta set the status from the AppError.
  STORAGE_FULL: "INTERNAL_SERVER_ERROR",
  INTERNAL: "INTERNAL_SERVER_ERROR",
};

const INTERNAL_MESSAGE = "Something went wrong on the server. Nothing was changed; try again, and check the server log if it persists.";

/**
 * Who may call a procedure. public: anyone (sign-in, the first admin, invite links, the session
 * itself). account: any signed-in person, on their own account. viewer, curator, admin: that role or above.
 */
export type Access = "public" | "account" | Role;

export interface ProcedureMeta {
  access?: Access;
  /** Where NUL characters in the input are replaced by the procedure (trace ingestion's text), not refused. */
  allowNul?: NulAllowance;
  /**
   * How the input addresses playbooks, so a caller restricted to some playbooks is checked before the
   * procedure acts (server/access/restriction.ts). Undeclared: refused to a restricted caller.
   */
  playbook?: PlaybookAddress | readonly PlaybookAddress[];
}

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const isServerFault = error.code === "INTERNAL_SERVER_ERROR";
      if (isServerFault) console.error("[trpc]", error.cause ?? error);
      const appError = error.cause instanceof AppError ? error.cause : null;
      return {
        ...shape,
        // A 5xx never shows its message: it may hold SQL or a stack.
        message: isServerFault && !appError ? INTERNAL_MESSAGE : shape.message,
        data: {
          code: shape.data.code,
          httpStatus: appError ? HTTP_STATUS[appError.code] : shape.data.httpStatus,
          path: shape.data.path,
          appCode: appError?.code ?? null,
          details: appError?.details ?? null,
          zodError: error.cause instanceof ZodError ? z.flattenError(error.cause) : null,
        },
      };
    },
  });

/** Turns a domain AppError (or a full disk) into the matching tRPC error so the HTTP status is right. */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const cause =
    result.error.cause instanceof AppError ? result.error.cause : isStorageFull(result.error) ? storageFullError(result.error) : null;
  if (cause) throw new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause });
  return result;
});

/** The playbook a call is about, when its input names one (where per-playbook roles will apply). */
function playbookOf(raw: unknown): string | undefined {
  if (raw && typeof raw === "object" && "playbookId" in raw && typeof raw.playbookId === "string") return raw.playbookId;
  return undefined;
}

/**
 * Input the databases cannot store (a lone surrogate, a NUL, JSON nested too deep) is refused with a
 * 400 naming the field, before the input is parsed: nothing is half-written and no 500 follows.
 */
const wellFormedInput = t.middleware(async ({ getRawInput, meta, next }) => {
  const problem = findIllFormed(await getRawInput(), { allowNul: meta?.allowNul ?? false });
  if (problem) {
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: problem.message,
      cause: new AppError("INVALID_INPUT", problem.message, { details: { path: problem.path.join(".") } }),
    });
  }
  return next();
});

function unauthorized(ctx: Context, message: string): TRPCError {
  return new TRPCError({ code: "UNAUTHORIZED", message: ctx.credentialProblem ?? message });
}

/**
 * Checks the role, then a restricted caller's playbooks (meta `playbook`), before the input is even
 * parsed; a refusal of a known principal is audited (once a minute per principal and procedure).
 */
function requireRole(role: Role) {
  return t.middleware(async ({ ctx, next, getRawInput, path, type, meta }) => {
    const raw = await getRawInput().catch(() => undefined);
    const playbookId = playbookOf(raw);
    // The role here; a restricted caller's playbooks by the procedure's declared address, below.
    const verdict = authorize(ctx.principal, role);
    if (!verdict.ok && verdict.code === "UNAUTHORIZED") throw unauthorized(ctx, verdict.message);
    const denied = verdict.ok
      ? await playbookRefusal(ctx.db, ctx.principal, meta?.playbook, raw)
      : new AppError("FORBIDDEN", verdict.message);
    if (!denied) return next();
    if (
      type === "mutation" &&
      (await firstInWindow(ctx.db, `denied:${ctx.audit.actor.kind}:${ctx.audit.actor.id ?? ctx.audit.actor.name}:${path}`))
    ) {
      await recordAudit(ctx.db, ctx.audit, {
        action: "access.denied",
        target: { type: "procedure", id: path },
        playbookId: playbookId ?? null,
        after: verdict.ok ? { reason: denied.message } : { needs: role },
      });
    }
    throw new TRPCError({ code: "FORBIDDEN", message: denied.message, cause: denied });
  });
}

const signedIn = t.middleware(({ ctx, next }) => {
  if (ctx.principal.kind !== "user") {
    throw ctx.principal.kind === "anonymous"
      ? unauthorized(ctx, "Sign in to ACE Studio first; your session may have ended.")
      : new TRPCError({ code: "FORBIDDEN", message: "This is about a signed-in person's own account; there is none here." });
  }
  return next({ ctx: { ...ctx, principal: ctx.principal } });
});

// ---- 3. Procedures -----------------------------------------------------------------------

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

const base = t.procedure.use(appErrors);

/** Anyone, signed in or not. Only the sign-in, first-admin and invite procedures and the session itself. */
export const publicProcedure = base.meta({ access: "public", playbook: "own" }).use(wellFormedInput);
/** A signed-in person acting on their own account (sign out, change password, their sessions). */
export const accountProcedure = base.meta({ access: "account", playbook: "own" }).use(signedIn).use(wellFormedInput);
/** Reads: everything a viewer may see. */
export const viewerProcedure = base.meta({ access: "viewer" }).use(requireRole("viewer")).use(wellFormedInput);
/** Curation: edits, approvals, rejections, rollbacks, runs. */
export const curatorProcedure = base.meta({ access: "curator" }).use(requireRole("curator")).use(wellFormedInput);
/** Administration: users, API keys, settings, budgets, the audit log. */
export const adminProcedure = base.meta({ access: "admin" }).use(requireRole("admin")).use(wellFormedInput);
