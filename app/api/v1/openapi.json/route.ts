// GET /api/v1/openapi.json: the agent API's OpenAPI 3.1 document, generated from its zod schemas.
import { buildOpenApiDocument } from "@/server/http/openapi";

export const dynamic = "force-dynamic";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

export function GET() {
  document ??= buildOpenApiDocument();
  return Response.json(document, { headers: { "cache-control": "no-cache" } });
}
