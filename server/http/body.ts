// Reading a JSON request body with a size limit, for the plain HTTP routes (app/api/v1/**).
import { AppError } from "@/server/errors/app-error";

function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1_048_576) * 10) / 10} MB`;
}

/**
 * The parsed JSON body. Larger than maxBytes → PAYLOAD_TOO_LARGE, decided from Content-Length when
 * the client sent one and counted while reading otherwise (a chunked body has no length, and a
 * declared length can lie): the body is never held in memory beyond the limit.
 */
export async function readJsonBody(request: Request, { maxBytes, hint = "" }: { maxBytes: number; hint?: string }): Promise<unknown> {
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
  if (size === 0) throw new AppError("INVALID_INPUT", "The request has no body. Send JSON with Content-Type: application/json.");

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new AppError("INVALID_INPUT", "The request body is not UTF-8 text. Send JSON encoded as UTF-8.");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AppError("INVALID_INPUT", `The request body is not valid JSON: ${(error as Error).message}.`);
  }
}
