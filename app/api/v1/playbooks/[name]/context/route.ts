// The compiled playbook an agent puts into its prompt:
// GET /api/v1/playbooks/{name}/context?budget=8000&counters=false&format=text, with ETag / 304.
// With ?experiment=<key>&unitId=<id>: the context of the unit's variant (X-Ace-Variant), which
// records the unit's exposure like an assignment.
import { apiRoute } from "@/server/apikeys/route";
import { parseContextQuery } from "@/server/context/schemas";
import { compileTarget, resolveContextTarget, type ContextRequest } from "@/server/context/service";
import type { Db } from "@/server/db/client";
import { parseExperimentContextQuery, resolveVariantContext } from "@/server/experiments/context";
import { matchesIfNoneMatch } from "@/server/http/etag";

export const dynamic = "force-dynamic";

async function plainContext(db: Db, name: string, request: ContextRequest) {
  const target = await resolveContextTarget(db, { name }, request);
  return { etag: target.etag, compile: () => compileTarget(db, target) };
}

export const GET = apiRoute<{ name: string }>({ scope: "context:read" }, async (request, { params, db, allowPlaybooks }) => {
  const { name } = params;
  await allowPlaybooks([name]);
  const searchParams = new URL(request.url).searchParams;
  const options = parseContextQuery(searchParams);
  const contextRequest = { budget: options.budget, includeCounters: options.counters, format: options.format };
  const experiment = parseExperimentContextQuery(searchParams);
  const variant = experiment ? await resolveVariantContext(db, name, experiment, contextRequest, { allowPlaybooks }) : null;
  const experimentHeaders: Record<string, string> = variant
    ? {
        "x-ace-experiment": variant.assignment.experiment,
        ...(variant.assignment.variant === null
          ? { "x-ace-experiment-reason": variant.assignment.reason ?? "" }
          : { "x-ace-variant": variant.assignment.variant }),
      }
    : {};
  // What to serve and its ETag, known before anything is compiled: enough to answer a 304.
  const served = variant ?? (await plainContext(db, name, contextRequest));
  // no-cache: caches may keep a copy but must ask first, which costs one small query (no bullets read).
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), served.etag)) {
    return new Response(null, { status: 304, headers: { etag: served.etag, "cache-control": "no-cache", ...experimentHeaders } });
  }
  const { result, etag } = await served.compile();
  const headers = {
    etag,
    "cache-control": "no-cache",
    "x-playbook-version": String(result.version),
    "x-context-tokens": String(result.tokens),
    "x-context-omitted-bullets": String(result.omittedBullets),
    ...experimentHeaders,
  };
  if (options.format === "text") {
    return new Response(result.context, { headers: { ...headers, "content-type": "text/plain; charset=utf-8" } });
  }
  return Response.json(result, { headers });
});
