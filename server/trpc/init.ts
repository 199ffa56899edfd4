// All tRPC setup in one place: 1. context, 2. initialisation and error formatting, 3. procedures.
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import { getDb, type Db } from "@/server/db/client";
import { AppError, type AppErrorCode } from "@/server/errors/app-error";

// ---- 1. Context --------------------------------------------------------------------------

export interface Context {
  db: Db;
  /** Who is acting, recorded as the author of every change. */
  actor: string;
}

/** There are no accounts yet: a client may name its user in this header; otherwise "local user". */
export const ACTOR_HEADER = "x-ace-user";

export function actorFromHeaders(headers: Headers): string {
  const named = headers.get(ACTOR_HEADER)?.trim().slice(0, 120);
  return named ? named : "local user";
}

export async function createTRPCContext(opts: { headers: Headers }): Promise<Context> {
  return { db: await getDb(), actor: actorFromHeaders(opts.headers) };
}

// ---- 2. Initialisation -------------------------------------------------------------------

const TRPC_CODE: Record<AppErrorCode, TRPCError["code"]> = {
  NOT_FOUND: "NOT_FOUND",
  INVALID_INPUT: "BAD_REQUEST",
  CONFLICT: "CONFLICT",
  BUSY: "SERVICE_UNAVAILABLE",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  INTERNAL: "INTERNAL_SERVER_ERROR",
};

const INTERNAL_MESSAGE = "Something went wrong on the server. Nothing was changed; try again, and check the server log if it persists.";

const t = initTRPC.context<Context>().create({
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
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        appCode: appError?.code ?? null,
        details: appError?.details ?? null,
        zodError: error.cause instanceof ZodError ? z.flattenError(error.cause) : null,
      },
    };
  },
});

/** Turns a domain AppError into the matching tRPC error so the HTTP status is right. */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[cause.code], message: cause.message, cause });
  }
  return result;
});

// ---- 3. Procedures -----------------------------------------------------------------------

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(appErrors);
