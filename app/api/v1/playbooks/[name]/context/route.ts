// The compiled playbook an agent puts into its prompt:
// GET /api/v1/playbooks/{name}/context?budget=8000&counters=false&format=text, with ETag / 304.
import { parseContextQuery } from "@/server/context/schemas";
import { compileTarget, resolveContextTarget } from "@/server/context/service";
import { getDb } from "@/server/db/client";
import { matchesIfNoneMatch } from "@/server/http/etag";
import { errorResponse } from "@/server/http/responses";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ name: string }> }) {
  try {
    const { name } = await context.params;
    const options = parseContextQuery(new URL(request.url).searchParams);
    const db = await getDb();
    const target = await resolveContextTarget(db, { name }, {
      budget: options.budget,
      includeCounters: options.counters,
      format: options.format,
    });
    // no-cache: caches may keep a copy but must ask first, which costs one small query (no bullets read).
    if (matchesIfNoneMatch(request.headers.get("if-none-match"), target.etag)) {
      return new Response(null, { status: 304, headers: { etag: target.etag, "cache-control": "no-cache" } });
    }
    const { result, etag } = await compileTarget(db, target);
    const headers = {
      etag,
      "cache-control": "no-cache",
      "x-playbook-version": String(result.version),
      "x-context-tokens": String(result.tokens),
      "x-context-omitted-bullets": String(result.omittedBullets),
    };
    if (options.format === "text") {
      return new Response(result.context, { headers: { ...headers, "content-type": "text/plain; charset=utf-8" } });
    }
    return Response.json(result, { headers });
  } catch (error) {
    return errorResponse(error);
  }
}
