// GET /api/v1/openapi.json: the agent API's OpenAPI 3.1 document, generated from its zod schemas.
import { apiRoute } from "@/server/apikeys/route";
import { buildOpenApiDocument } from "@/server/http/openapi";

export const dynamic = "force-dynamic";

let document: ReturnType<typeof buildOpenApiDocument> | undefined;

export const GET = apiRoute({ public: "the API's description holds no data; agents read it before they have a key" }, async () => {
  document ??= buildOpenApiDocument();
  return Response.json(document, { headers: { "cache-control": "no-cache" } });
});
