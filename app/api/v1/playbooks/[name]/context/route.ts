// The compiled playbook an agent puts into its prompt:
// GET /api/v1/playbooks/{name}/context?budget=8000&counters=false&format=text, with ETag / 304.
import { apiRoute } from "@/server/apikeys/route";
import { parseContextQuery } from "@/server/context/schemas";
import { compileTarget, resolveContextTarget } from "@/server/context/service";
import { matchesIfNoneMatch } from "@/server/http/etag";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ name: string }>({ scope: "context:read" }, async (request, { params, db, allowPlaybooks }) => {
  const { name } = params;
  await allowPlaybooks([name]);
  const options = parseContextQuery(new URL(request.url).searchParams);
  const target = await resolveContextTarget(
    db,
    { name },
    {
      budget: options.budget,
      includeCounters: options.counters,
      format: options.format,
    },
  );
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
});
