// Query parameters of the /api/v1 GET and DELETE routes, read the same way everywhere: only the
// parameters a route knows, each at most once, and times with their zone. Plain zod, so a route's
// schema file (which client code may import) can use it.
import { z } from "zod";

/**
 * The route's parameters as trimmed text, by name. A parameter the route does not know, or one
 * given twice, is a 400 naming it (a typo must not widen a query, least of all a deletion).
 */
export function queryParameterValues(params: URLSearchParams, known: readonly string[]): Record<string, string> {
  const issues: z.core.$ZodIssue[] = [];
  const values: Record<string, string> = {};
  for (const name of new Set(params.keys())) {
    const given = params.getAll(name);
    if (!known.includes(name)) {
      issues.push({
        code: "custom",
        path: [name],
        message: `Unknown parameter ${name}; the parameters are ${known.join(", ")}.`,
        input: given[0],
      });
    } else if (given.length > 1) {
      issues.push({ code: "custom", path: [name], message: `${name} is given ${given.length} times; give it once.`, input: given });
    } else {
      values[name] = (given[0] ?? "").trim();
    }
  }
  if (issues.length > 0) throw new z.ZodError(issues);
  return values;
}

/** An instant with its zone (…Z or …+01:00), or a day (UTC midnight). Never read in the server's zone. */
export function instantParameter(name: string) {
  const message = `${name} is an ISO 8601 time with a zone offset, e.g. 2026-11-01T00:00:00Z, or a date, e.g. 2026-11-01 (UTC).`;
  return z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: message })
    .transform((text) => new Date(/T/.test(text) ? text : `${text}T00:00:00.000Z`));
}
