// Domain errors with a code; server/trpc/init.ts maps the code to a tRPC/HTTP status in one place.
// Messages are written for the person who will read them: what went wrong and what to do.

export const APP_ERROR_CODES = [
  "NOT_FOUND",
  "INVALID_INPUT",
  "CONFLICT",
  "BUSY",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "RATE_LIMITED",
  /** The database's disk is full (server/errors/storage-full.ts). */
  "STORAGE_FULL",
  "INTERNAL",
] as const;
export type AppErrorCode = (typeof APP_ERROR_CODES)[number];

export class AppError extends Error {
  override readonly name = "AppError";

  constructor(
    readonly code: AppErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.details = options?.details;
  }

  readonly details: Record<string, unknown> | undefined;
}

export function notFound(what: string): AppError {
  return new AppError("NOT_FOUND", `${what} was not found. It may have been deleted or renamed.`);
}

/** HTTP status for each code, shared by the tRPC formatter and the plain HTTP routes. */
export const HTTP_STATUS: Record<AppErrorCode, number> = {
  NOT_FOUND: 404,
  INVALID_INPUT: 400,
  CONFLICT: 409,
  BUSY: 503,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  RATE_LIMITED: 429,
  STORAGE_FULL: 507,
  INTERNAL: 500,
};
