// JSON error bodies for the plain HTTP routes (app/api/**), with the same codes and wording as tRPC.
import { ZodError, z } from "zod";
import { AppError, HTTP_STATUS } from "@/server/errors/app-error";
import { isStorageFull, storageFullError } from "@/server/errors/storage-full";

export function errorResponse(error: unknown): Response {
  if (error instanceof ZodError) {
    const issues = error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
    const summary = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ");
    return Response.json(
      { error: { code: "INVALID_INPUT", message: summary, issues, fields: z.flattenError(error).fieldErrors } },
      { status: 400 },
    );
  }
  if (error instanceof AppError) {
    return Response.json(
      { error: { code: error.code, message: error.message, details: error.details ?? null } },
      { status: HTTP_STATUS[error.code] },
    );
  }
  if (isStorageFull(error)) {
    console.error("[http] the disk is full:", error);
    const full = storageFullError(error);
    return Response.json(
      { error: { code: full.code, message: full.message, details: null } },
      { status: HTTP_STATUS[full.code], headers: { "cache-control": "no-store" } },
    );
  }
  console.error("[http]", error);
  return Response.json(
    { error: { code: "INTERNAL", message: "Something went wrong on the server. Nothing was changed; check the server log." } },
    { status: 500 },
  );
}
