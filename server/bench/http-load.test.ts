import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedLoop } from "./http-load";

/** Answers each POST with its body after `delay` ms; counts requests, connections and the most at once. */
describe("closedLoop", () => {
  const seen = { requests: 0, connections: 0, inFlight: 0, peak: 0, bodies: [] as string[] };
  const DELAY = 20;
  let origin = "";
  const server = http.createServer((request, response) => {
    seen.requests += 1;
    seen.inFlight += 1;
    seen.peak = Math.max(seen.peak, seen.inFlight);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.bodies.push(body);
      setTimeout(() => {
        seen.inFlight -= 1;
        response.writeHead(body.includes("bad") ? 500 : 200, { "content-type": "application/json" });
        response.end(body);
      }, DELAY);
    });
  });
  server.on("connection", () => (seen.connections += 1));

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("keeps `concurrency` requests in flight over as many kept-alive connections, timing only the timed ones", async () => {
    Object.assign(seen, { requests: 0, connections: 0, peak: 0, bodies: [] });
    const checked: number[] = [];
    const result = await closedLoop(
      origin,
      { concurrency: 4, warmup: 4, requests: 40 },
      (index) => ({
        method: "POST",
        path: "/assign",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ unitId: `u-${index}` }),
      }),
      (status, body, index) => {
        expect(status).toBe(200);
        expect(JSON.parse(body)).toEqual({ unitId: `u-${index}` });
        checked.push(index);
      },
    );
    expect(seen.requests).toBe(44);
    expect(checked.sort((a, b) => a - b)).toEqual(Array.from({ length: 44 }, (_, i) => i));
    expect(result.latencies).toHaveLength(40);
    expect(Math.min(...result.latencies)).toBeGreaterThanOrEqual(DELAY - 1);
    expect(result.peakInFlight).toBe(4);
    expect(seen.peak).toBe(4);
    expect(seen.connections).toBeLessThanOrEqual(4);
    // Ten rounds of four at 20 ms each, at least.
    expect(result.elapsedMs).toBeGreaterThanOrEqual(10 * DELAY - 1);
  });

  it("stops with the check's error on a wrong answer", async () => {
    await expect(
      closedLoop(
        origin,
        { concurrency: 2, warmup: 0, requests: 6 },
        (index) => ({ method: "POST", path: "/", body: index === 3 ? "bad" : "good" }),
        (status) => {
          if (status !== 200) throw new Error(`HTTP ${status}`);
        },
      ),
    ).rejects.toThrow("HTTP 500");
  });
});
