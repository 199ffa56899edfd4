// Next.js hands route handlers a body cut off at experimental.proxyClientMaxBodySize (it buffers it
// for proxy.ts): the cut must lie beyond every route's own limit, or a large import would reach the
// route truncated and fail as bad JSON instead of importing (or being refused with a 413).
import { describe, expect, it } from "vitest";
import { MAX_PROPOSAL_BODY_BYTES } from "@/server/playbooks/schemas";
import { MAX_TRACE_BODY_BYTES } from "@/server/traces/schemas";
import { MAX_TRPC_BODY_BYTES } from "./schemas";

describe("the body Next.js buffers for proxy.ts", () => {
  it("is larger than every route's limit by more than one 64 KB chunk", async () => {
    const { default: nextConfig } = (await import(/* @vite-ignore */ new URL("../../next.config.mjs", import.meta.url).href)) as {
      default: { experimental?: { proxyClientMaxBodySize?: number } };
    };
    const buffered = nextConfig.experimental?.proxyClientMaxBodySize ?? 10 * 1_048_576;
    for (const limit of [MAX_TRPC_BODY_BYTES, MAX_PROPOSAL_BODY_BYTES, MAX_TRACE_BODY_BYTES]) {
      expect(buffered - limit).toBeGreaterThan(64 * 1024);
    }
  });
});
