// Reading a request body with a size limit, for the plain HTTP routes (app/api/v1/**) and the tRPC
// endpoint: counted while it arrives (never held beyond the limit), decoded as strict UTF-8, and for
// JSON checked for what the databases cannot store before any route sees it.
import { findIllFormed, type NulAllowance } from "@/server/ace/well-formed";
import { AppError } from "@/server/errors/app-error";
import { decodeUtf8, InvalidUtf8Error } from "@/server/ace/text/utf8";

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;
}

export interface BodyLimit {
  maxBytes: number;
  /** What to do instead, for the 413's message ("Send the traces in smaller batches."). */
  hint?: string;
}

/**
 * The body as text. Larger than maxBytes → PAYLOAD_TOO_LARGE, decided from Content-Length when the
 * client sent one and counted while reading otherwise (a chunked body has no length, and a declared
 * length can lie). Bytes that are not UTF-8 → INVALID_INPUT naming the first one's offset.
 */
export async function readTextBody(request: Request, { maxBytes, hint = "" }: BodyLimit): Promise<string> {
  const tooLarge = () =>
    new AppError(
      "PAYLOAD_TOO_LARGE",
      `The request body is larger than ${megabytes(maxBytes)}.${hint ? ` ${hint}` : ""} Nothing was stored.`,
      {
        details: { maxBytes },
      },
    );
  const declared = request.headers.get("content-length")?.trim();
  if (declared && /^\d+$/.test(declared) && Number(declared) > maxBytes) throw tooLarge();

  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  try {
    return decodeUtf8(Buffer.concat(chunks));
  } catch (error) {
    if (!(error instanceof InvalidUtf8Error)) throw error;
    throw new AppError("INVALID_INPUT", `The request body is not UTF-8 text: ${error.message}. Send JSON encoded as UTF-8.`, {
      details: { byteOffset: error.offset },
    });
  }
}

/** Throws a 400 naming the field when the value holds a lone surrogate, a NUL (unless allowed) or nests too deep. */
export function requireWellFormed(value: unknown, options: { allowNul?: NulAllowance } = {}): void {
  const problem = findIllFormed(value, options);
  if (problem) throw new AppError("INVALID_INPUT", `${problem.message} Nothing was stored.`, { details: { path: problem.path.join(".") } });
}

/**
 * The parsed JSON body (see readTextBody for the limits), refused with a 400 naming the field when it
 * holds what the databases cannot store. `allowNul`: where the route replaces NUL characters itself.
 */
export async function readJsonBody(request: Request, options: BodyLimit & { allowNul?: NulAllowance }): Promise<unknown> {
  const text = await readTextBody(request, options);
  if (text.length === 0) throw new AppError("INVALID_INPUT", "The request has no body. Send JSON with Content-Type: application/json.");
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new AppError("INVALID_INPUT", `The request body is not valid JSON: ${(error as Error).message}.`);
  }
  requireWellFormed(value, { allowNul: options.allowNul });
  return value;
}
