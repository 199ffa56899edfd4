// Route handlers behind a real HTTP server in the test's own process, on a free loopback port: the
// request crosses the network stack as an agent's does, while the test keeps its database (served
// with serveDb) and can reach into it. Each request is stamped as the studio's server stamps it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PEER_HEADER, sealPeer } from "@/server/auth/peer";

export type RouteHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** A path pattern (named groups become the route's params, decoded as Next.js decodes them) and its handler. */
export type Route = { method: string; pattern: RegExp; handler: unknown };

export async function serveRoutes(routes: Route[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((incoming, outgoing) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const path = new URL(incoming.url ?? "/", "http://127.0.0.1").pathname;
      const route = routes.find((candidate) => candidate.method === incoming.method && candidate.pattern.test(path));
      if (!route) return outgoing.writeHead(404).end();
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === "string") headers.set(name, value);
      // A loopback peer, as server/auth/peer.ts stamps every request the studio's server receives.
      headers.set(PEER_HEADER, sealPeer({ remote: incoming.socket.remoteAddress ?? "", listen: "127.0.0.1", forwarded: false }));
      const method = incoming.method ?? "GET";
      const params = Object.fromEntries(
        Object.entries(route.pattern.exec(path)?.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]),
      );
      const request = new Request(`http://127.0.0.1${incoming.url}`, {
        method,
        headers,
        body: method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks),
      });
      const response = await (route.handler as RouteHandler)(request, { params: Promise.resolve(params) });
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    })().catch(() => outgoing.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
