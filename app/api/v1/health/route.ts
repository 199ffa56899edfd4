// GET /api/v1/health: 200 when this instance can serve (its database answers; "degraded" after a
// write failed on a full disk), 503 when not. For
// load balancers and orchestrators; HEAD answers the same status without the body.
import { apiRoute } from "@/server/apikeys/route";
import { instanceHealth } from "@/server/http/health";

export const dynamic = "force-dynamic";

export const GET = apiRoute(
  { public: "load balancers probe it without a key; it says only whether this instance and its database answer" },
  async () => {
    const health = await instanceHealth();
    // Degraded still serves (reads work); only unavailable takes the instance out of rotation.
    return Response.json(health, { status: health.status === "unavailable" ? 503 : 200, headers: { "cache-control": "no-store" } });
  },
);
