import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { crossSiteRefusal } from "@/server/auth/same-origin";
import { AppError, HTTP_STATUS } from "@/server/errors/app-error";
import { servingRequest } from "@/server/http/activity";
import { readTextBody } from "@/server/http/body";
import { createTRPCContext } from "@/server/trpc/init";
import { MAX_TRPC_BATCH, MAX_TRPC_BODY_BYTES } from "@/server/trpc/schemas";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";

function refusal(error: AppError): Response {
  const status = HTTP_STATUS[error.code];
  return Response.json({ error: { message: error.message, code: error.code, data: { httpStatus: status } } }, { status });
}

/**
 * The limits tRPC itself does not set, checked before any procedure runs: procedures per batch, and
 * the body read with a byte cap (tRPC would read all of it before a procedure's own check) and as
 * strict UTF-8 (tRPC would put U+FFFD in place of bad bytes), as POST /api/v1/traces does.
 */
async function checkedRequest(req: Request): Promise<Request | Response> {
  const url = new URL(req.url);
  const procedures = url.pathname.slice(url.pathname.lastIndexOf("/") + 1).split(",").length;
  if (url.searchParams.get("batch") === "1" && procedures > MAX_TRPC_BATCH) {
    return refusal(
      new AppError(
        "INVALID_INPUT",
        `One request may call at most ${MAX_TRPC_BATCH} procedures; this one calls ${procedures}. Send fewer at once.`,
      ),
    );
  }
  if (req.method !== "POST") return req;
  try {
    const text = await readTextBody(req, {
      maxBytes: MAX_TRPC_BODY_BYTES,
      hint: "A playbook file may be at most 25 MB; import a larger one with the CLI (npm run ace -- import).",
    });
    const headers = new Headers(req.headers);
    headers.delete("content-length");
    return new Request(req.url, { method: req.method, headers, body: text, signal: req.signal });
  } catch (error) {
    if (error instanceof AppError) return refusal(error);
    throw error;
  }
}

function handler(req: Request) {
  return servingRequest(() => answer(req));
}

async function answer(req: Request) {
  // Mutations are POSTs: one sent by a page of another site is refused before any procedure runs.
  const crossSite = crossSiteRefusal(req.method, req.headers);
  if (crossSite) return Response.json({ error: { message: crossSite, code: "FORBIDDEN" } }, { status: 403 });
  const checked = await checkedRequest(req);
  if (checked instanceof Response) return checked;
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: checked,
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: ({ resHeaders }) => createTRPCContext({ headers: checked.headers, resHeaders }),
    // tRPC knows no 507: a call that failed on a full disk says so in its status too.
    responseMeta: ({ errors }) =>
      errors.length > 0 && errors.every((error) => error.cause instanceof AppError && error.cause.code === "STORAGE_FULL")
        ? { status: HTTP_STATUS.STORAGE_FULL }
        : {},
  });
}

export { handler as GET, handler as POST };
