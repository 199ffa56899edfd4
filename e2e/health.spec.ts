// GET /api/v1/health on the real server (next start), as a load balancer's probe sees it.
import { expect, test } from "@playwright/test";
import { BASE_URL } from "./base-url";

test("a load balancer's probe: GET says the instance and its database answer, HEAD gives the same status", async ({ request }) => {
  const get = await request.get(`${BASE_URL}/api/v1/health`);
  expect(get.status()).toBe(200);
  expect(get.headers()["cache-control"]).toBe("no-store");
  expect(await get.json()).toMatchObject({ status: "ok", checks: { database: { status: "ok" } } });

  const head = await request.head(`${BASE_URL}/api/v1/health`);
  expect(head.status()).toBe(200);
  expect((await head.body()).length).toBe(0);
});
