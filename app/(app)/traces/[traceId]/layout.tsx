import type { ReactNode } from "react";
import { loadTrace } from "./load-trace";

// Reads the trace before anything renders, outside every loading.tsx (the list's sits in a route
// group beside this one): a loading state streams the page with status 200, after which notFound()
// can no longer make an unknown trace a 404. The read is cached per request; the page uses it again.
export default async function TraceLayout({ children, params }: { children: ReactNode; params: Promise<{ traceId: string }> }) {
  await loadTrace((await params).traceId);
  return children;
}
