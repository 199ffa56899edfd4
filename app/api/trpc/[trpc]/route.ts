import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { crossSiteRefusal } from "@/server/auth/same-origin";
import { createTRPCContext } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";

function handler(req: Request) {
  // Mutations are POSTs: one sent by a page of another site is refused before any procedure runs.
  const crossSite = crossSiteRefusal(req.method, req.headers);
  if (crossSite) return Response.json({ error: { message: crossSite, code: "FORBIDDEN" } }, { status: 403 });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createTRPCContext({ headers: req.headers, resHeaders }),
  });
}

export { handler as GET, handler as POST };
