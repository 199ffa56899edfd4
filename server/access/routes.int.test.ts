// The playbook restriction, route by route: every exported method of every app/api/**/route.ts has
// an expectation here (a route or method missing from the table fails), and a key holding every
// scope but restricted to playbook "alpha" is let through on alpha and refused on "beta" (403 naming
// the playbook or the restriction), refused the studio-wide ones. On embedded PGlite and PostgreSQL.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_SCOPES } from "@/server/apikeys/schemas";
import { openTestDatabase, testEngines, type TestDatabase } from "@/server/testing/db";
import { SMALL_PLAYBOOK, twoVariants } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** What the requests address: the seeded playbook's name and id, and its experiment's key. */
interface Side {
  name: string;
  id: string;
  experiment: string;
}

/** One request to a route, for a side: its path parameters, query and JSON body. */
interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

type Expectation =
  /** Allowed on the caller's playbook, refused on another. */
  | { kind: "addressed"; call: (side: Side) => Call }
  /** Refused to a restricted caller whatever it names. */
  | { kind: "studio"; call: Call }
  /** Needs no key and names no playbook, and why. */
  | { kind: "open"; why: string };

const EXPECTED: Record<string, Expectation> = {
  "GET app/api/audit/export/route.ts": { kind: "studio", call: {} },
  "GET app/api/mcp/route.ts": { kind: "open", why: "answers 405: the MCP server is stateless" },
  "DELETE app/api/mcp/route.ts": { kind: "open", why: "answers 405: the MCP server is stateless" },
  "POST app/api/mcp/route.ts": {
    kind: "addressed",
    call: (side) => ({
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search_bullets", arguments: { playbook: side.name, query: "retry" } },
      },
    }),
  },
  "GET app/api/playbooks/[playbookId]/export/route.ts": { kind: "addressed", call: (side) => ({ params: { playbookId: side.id } }) },
  "GET app/api/traces/export/route.ts": { kind: "addressed", call: (side) => ({ query: { playbook: side.name, unitId: "unit-1" } }) },
  "GET app/api/trpc/[trpc]/route.ts": { kind: "open", why: "each procedure is checked by server/access/restriction.int.test.ts" },
  "POST app/api/trpc/[trpc]/route.ts": { kind: "open", why: "each procedure is checked by server/access/restriction.int.test.ts" },
  "POST app/api/v1/experiments/route.ts": {
    kind: "addressed",
    call: (side) => ({ body: twoVariants({ key: `made-on-${side.name}`, playbook: side.name }) }),
  },
  "GET app/api/v1/experiments/[key]/route.ts": { kind: "addressed", call: (side) => ({ params: { key: side.experiment } }) },
  "PATCH app/api/v1/experiments/[key]/route.ts": {
    kind: "addressed",
    call: (side) => ({ params: { key: side.experiment }, body: { name: "Renamed" } }),
  },
  "POST app/api/v1/experiments/[key]/assign/route.ts": {
    kind: "addressed",
    call: (side) => ({ params: { key: side.experiment }, body: { unitId: "unit-1" } }),
  },
  "GET app/api/v1/experiments/[key]/results/route.ts": { kind: "addressed", call: (side) => ({ params: { key: side.experiment } }) },
  "GET app/api/v1/health/route.ts": { kind: "open", why: "the readiness check: no key, no playbook" },
  "GET app/api/v1/openapi.json/route.ts": { kind: "open", why: "the API's description: no key, no playbook" },
  "GET app/api/v1/playbooks/[name]/context/route.ts": { kind: "addressed", call: (side) => ({ params: { name: side.name } }) },
  "GET app/api/v1/playbooks/[name]/metrics/route.ts": { kind: "addressed", call: (side) => ({ params: { name: side.name } }) },
  "POST app/api/v1/playbooks/[name]/proposals/route.ts": {
    kind: "addressed",
    call: (side) => ({ params: { name: side.name }, body: { content: SMALL_PLAYBOOK, format: "ace" } }),
  },
  "GET app/api/v1/traces/route.ts": { kind: "addressed", call: (side) => ({ query: { playbook: side.name, unitId: "unit-1" } }) },
  "POST app/api/v1/traces/route.ts": {
    kind: "addressed",
    call: (side) => ({ body: { playbook: side.name, task: "Refund order 7", output: "Done.", outcome: "success" } }),
  },
  "DELETE app/api/v1/traces/route.ts": { kind: "addressed", call: (side) => ({ query: { playbook: side.name, unitId: "unit-1" } }) },
};

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return /^route\.(ts|tsx|js|mjs)$/.test(name) ? [full] : [];
  });
}

/** "METHOD file" for every exported HTTP method of every route file. */
async function routeMethods(files: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    const routeModule = (await import(/* @vite-ignore */ path.join(root, file))) as Record<string, unknown>;
    for (const method of METHODS) if (method in routeModule) found.push(`${method} ${file}`);
  }
  return found.sort();
}

function missingFrom(found: readonly string[], expected: Record<string, Expectation>): string[] {
  return [
    ...found.filter((route) => !(route in expected)).map((route) => `${route}: no expectation in this test's table`),
    ...Object.keys(expected)
      .filter((route) => !found.includes(route))
      .map((route) => `${route}: no such route`),
  ];
}

const files = routeFiles(path.join(root, "app/api")).map((file) => path.relative(root, file).split(path.sep).join("/"));

describe("the route restriction table", () => {
  it("has an expectation for every method of every route", async () => {
    expect(files.length).toBeGreaterThan(10);
    expect(missingFrom(await routeMethods(files), EXPECTED)).toEqual([]);
  }, 60_000);

  it("fails for a route that is not in it", async () => {
    const found = [...(await routeMethods(files)), "POST app/api/v1/dummy/route.ts"];
    expect(missingFrom(found, EXPECTED)).toEqual(["POST app/api/v1/dummy/route.ts: no expectation in this test's table"]);
  }, 60_000);
});

// Inside JSON (and MCP's JSON inside JSON) the quotes come escaped.
const REFUSED = /restricted to the playbook \W*alpha|may not touch the playbooks? \W*beta/;

describe.each(testEngines())("routes for a key restricted to one playbook, on %s", (engine) => {
  let database: TestDatabase;
  let secret = "";
  const alpha: Side = { name: "alpha", id: "", experiment: "exp-alpha" };
  const beta: Side = { name: "beta", id: "", experiment: "exp-beta" };

  beforeAll(async () => {
    database = await openTestDatabase(engine, { serve: true });
    const local = callerAs(database.db, "local");
    for (const side of [alpha, beta]) {
      side.id = (
        await local.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: side.name } })
      ).playbookId;
      await local.experiments.create(twoVariants({ key: side.experiment, playbook: side.name, status: "running" }));
    }
    secret = (await local.apiKeys.create({ name: "alpha everything", scopes: [...API_SCOPES], playbooks: [alpha.id] })).secret;
  });
  afterAll(async () => {
    await database?.close();
  });

  async function send(route: string, call: Call): Promise<{ status: number; text: string }> {
    const [method, file] = route.split(" ") as [string, string];
    const routeModule = (await import(/* @vite-ignore */ path.join(root, file))) as Record<string, unknown>;
    const handler = routeModule[method] as (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
    const url = new URL(`http://localhost/${file.replace(/^app\//, "").replace(/\/route\.ts$/, "")}`);
    url.pathname = url.pathname.replace(/\[(\w+)\]/g, (_, name: string) => encodeURIComponent(call.params?.[name] ?? name));
    for (const [name, value] of Object.entries(call.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { authorization: `Bearer ${secret}`, accept: "application/json, text/event-stream" };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    const request = new Request(url, { method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) });
    const response = await handler(request, { params: Promise.resolve(call.params ?? {}) });
    return { status: response.status, text: await response.text() };
  }

  /** Refused: a 403 naming the restriction, or (MCP, inside a 200) a tool error saying so. */
  function refused(answer: { status: number; text: string }): boolean {
    return (answer.status === 403 || answer.status === 200) && REFUSED.test(answer.text);
  }

  it("is refused every route addressed to another playbook, and let through on its own", async () => {
    const outcomes: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [route, expectation] of Object.entries(EXPECTED)) {
      if (expectation.kind !== "addressed") continue;
      const other = await send(route, expectation.call(beta));
      outcomes[`${route} on beta`] = refused(other) ? "refused" : `${other.status} ${other.text.slice(0, 200)}`;
      expected[`${route} on beta`] = "refused";
      const own = await send(route, expectation.call(alpha));
      outcomes[`${route} on alpha`] = refused(own) || own.status >= 500 ? `${own.status} ${own.text.slice(0, 200)}` : "allowed";
      expected[`${route} on alpha`] = "allowed";
    }
    expect(outcomes).toEqual(expected);
    // Nothing reached beta: no trace, no proposal, the experiment unchanged.
    const local = callerAs(database.db, "local");
    expect((await local.traces.list({ playbookId: beta.id })).total).toBe(0);
    expect((await local.delta.list({ playbookId: beta.id })).total).toBe(0);
    expect((await local.experiments.get({ key: beta.experiment })).name).not.toBe("Renamed");
  }, 120_000);

  it("is refused the studio-wide routes", async () => {
    for (const [route, expectation] of Object.entries(EXPECTED)) {
      if (expectation.kind !== "studio") continue;
      const answer = await send(route, expectation.call);
      expect(answer.status, route).toBe(403);
      expect(answer.text, route).toMatch(/restricted to the playbook \W*alpha\W*; this is studio-wide/);
    }
    // One playbook's audit entries are that playbook's.
    expect((await send("GET app/api/audit/export/route.ts", { query: { playbook: alpha.id } })).status).toBe(200);
    expect((await send("GET app/api/audit/export/route.ts", { query: { playbook: beta.id } })).status).toBe(403);
  });
});
