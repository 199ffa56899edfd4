// The small refusals, sent over HTTP to the route handlers on embedded PGlite and PostgreSQL, as an
// agent or a browser sends them: a NUL in a name (body, path or query) is a 400 naming the field,
// not a 500; a common password and a javascript: evidence link are 400s saying why. Nothing changes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngines } from "@/server/testing/db";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { serveRoutes } from "@/server/testing/route-server";

const traces = await import("@/app/api/v1/traces/route");
const context = await import("@/app/api/v1/playbooks/[name]/context/route");
const trpc = await import("@/app/api/trpc/[trpc]/route");

const ROUTES = [
  { method: "POST", pattern: /^\/api\/v1\/traces$/, handler: traces.POST },
  { method: "DELETE", pattern: /^\/api\/v1\/traces$/, handler: traces.DELETE },
  { method: "GET", pattern: /^\/api\/v1\/playbooks\/(?<name>[^/]+)\/context$/, handler: context.GET },
  { method: "POST", pattern: /^\/api\/trpc\/[^/]+$/, handler: trpc.POST },
];

interface ApiError {
  error: { code: string; message: string };
}
interface TrpcError {
  error: { json: { message: string; data: { httpStatus: number; zodError: { fieldErrors: Record<string, string[]> } | null } } };
}

describe.each(testEngines())("small refusals over HTTP on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["local"] });
  let server: Awaited<ReturnType<typeof serveRoutes>>;

  beforeAll(async () => {
    server = await serveRoutes(ROUTES);
  });
  afterAll(async () => {
    await server?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function counts() {
    const db = suite.database.db;
    const [traceRows, users, deltas, playbooks] = await Promise.all([
      db.trace.count(),
      db.user.count(),
      db.delta.count(),
      db.playbook.count(),
    ]);
    return { traceRows, users, deltas, playbooks };
  }

  it("a NUL in a playbook name is a 400 naming the field, in the body, the path and the query", async () => {
    const before = await counts();
    const posted = await send("POST", "/api/v1/traces", { playbook: "sup\u0000port", task: "Refund order 7" });
    expect(posted.status).toBe(400);
    expect(((await posted.json()) as ApiError).error.message).toMatch(/^playbook: has a NUL character \(U\+0000\) at character 4/);

    const read = await send("GET", "/api/v1/playbooks/sup%00port/context?format=text");
    expect(read.status).toBe(400);
    expect(((await read.json()) as ApiError).error.message).toMatch(/^name: has a NUL character/);

    const erased = await send("DELETE", "/api/v1/traces?playbook=sup%00port&unitId=u-1");
    expect(erased.status).toBe(400);
    expect(((await erased.json()) as ApiError).error.message).toMatch(/^playbook: has a NUL character/);

    const created = await send("POST", "/api/trpc/playbook.create", { json: { name: "sup\u0000port" } });
    expect(created.status).toBe(400);
    expect(((await created.json()) as TrpcError).error.json.message).toMatch(/^name: has a NUL character/);
    expect(await counts()).toEqual(before);
    expect((await send("GET", "/api/v1/playbooks/support/context?format=text")).status).toBe(200);
  });

  it("a common password is a 400 whose reason stands at the password field", async () => {
    const before = await counts();
    const response = await send("POST", "/api/trpc/users.create", {
      json: { email: "ada@example.com", role: "admin", password: "password12" },
    });
    const body = (await response.json()) as TrpcError;
    expect(response.status).toBe(400);
    expect(body.error.json.data.zodError?.fieldErrors.password?.[0]).toMatch(/one of the most common passwords/);
    expect(await counts()).toEqual(before);
  });

  it("a javascript: evidence link is a 400; an https link is kept", async () => {
    const before = await counts();
    const propose = (url: string) =>
      send("POST", "/api/trpc/delta.propose", {
        json: {
          playbookId: suite.playbookId,
          operations: [{ operation: { type: "add", section: "strategies_and_insights", content: "Check the order first." } }],
          evidence: { links: [{ label: "ticket", url }] },
        },
      });
    const refused = await propose("javascript:alert(document.cookie)");
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as TrpcError).error.json.message).toMatch(/An evidence link is an http:\/\/ or https:\/\/ URL/);
    expect(await counts()).toEqual(before);
    expect((await propose("https://tickets.example.com/T-1")).status).toBe(200);
  });
});
