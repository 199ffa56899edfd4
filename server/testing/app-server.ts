// One ACE Studio app instance without Next.js, for tests that need several app processes on one
// database (server/instances.int.test.ts): the start-up `next start` runs (server/startup.ts:
// migrations, accounts, the run worker) and the same route handlers, served by node:http.
//   DATABASE_URL=postgresql://… PORT=3201 npx tsx server/testing/app-server.ts
// It prints "listening on <port>" once it serves, and stops on SIGTERM or SIGINT.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { closeDb } from "@/server/db/client";
import { startServer } from "@/server/startup";

// Route handlers take their own params type; the server passes what the path's pattern matched.
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const handler = (route: unknown) => route as Handler;

async function routes(): Promise<{ pattern: RegExp; method: string; handler: Handler }[]> {
  const context = await import("@/app/api/v1/playbooks/[name]/context/route");
  const proposals = await import("@/app/api/v1/playbooks/[name]/proposals/route");
  const traces = await import("@/app/api/v1/traces/route");
  const experiment = await import("@/app/api/v1/experiments/[key]/route");
  const trpc = await import("@/app/api/trpc/[trpc]/route");
  return [
    { pattern: /^\/api\/v1\/playbooks\/(?<name>[^/]+)\/context$/, method: "GET", handler: handler(context.GET) },
    { pattern: /^\/api\/v1\/playbooks\/(?<name>[^/]+)\/proposals$/, method: "POST", handler: handler(proposals.POST) },
    { pattern: /^\/api\/v1\/traces$/, method: "POST", handler: handler(traces.POST) },
    { pattern: /^\/api\/v1\/traces$/, method: "DELETE", handler: handler(traces.DELETE) },
    { pattern: /^\/api\/v1\/experiments\/(?<key>[^/]+)$/, method: "PATCH", handler: handler(experiment.PATCH) },
    { pattern: /^\/api\/trpc\/(?<trpc>[^/]+)$/, method: "GET", handler: handler(trpc.GET) },
    { pattern: /^\/api\/trpc\/(?<trpc>[^/]+)$/, method: "POST", handler: handler(trpc.POST) },
  ];
}

async function toRequest(incoming: IncomingMessage, port: number): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const method = incoming.method ?? "GET";
  return new Request(`http://127.0.0.1:${port}${incoming.url ?? "/"}`, {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks),
  });
}

async function send(response: Response, outgoing: ServerResponse): Promise<void> {
  outgoing.statusCode = response.status;
  response.headers.forEach((value, name) => outgoing.setHeader(name, value));
  outgoing.end(Buffer.from(await response.arrayBuffer()));
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 1) throw new Error("Set PORT to the port this instance serves.");
  await startServer();
  const table = await routes();
  const server = http.createServer((incoming, outgoing) => {
    void (async () => {
      const path = new URL(incoming.url ?? "/", "http://127.0.0.1").pathname;
      const route = table.find((candidate) => candidate.method === incoming.method && candidate.pattern.test(path));
      if (!route) {
        outgoing.statusCode = 404;
        outgoing.end();
        return;
      }
      const params = Object.fromEntries(
        Object.entries(route.pattern.exec(path)?.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]),
      );
      await send(await route.handler(await toRequest(incoming, port), { params: Promise.resolve(params) }), outgoing);
    })().catch((error: unknown) => {
      console.error("[app-server] request failed:", error);
      outgoing.statusCode = 500;
      outgoing.end();
    });
  });
  server.listen(port, "127.0.0.1", () => console.log(`listening on ${port}`));
  const stop = () => {
    server.close();
    void closeDb().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  console.error("[app-server] could not start:", error);
  process.exit(1);
});
