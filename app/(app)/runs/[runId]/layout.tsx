import type { ReactNode } from "react";
import { loadRun } from "./load-run";

// Reads the run before anything renders, outside every loading.tsx (the list's sits in a route group
// beside this one): a loading state streams the page with status 200, after which notFound() can no
// longer make an unknown run a 404. The read is cached per request; the page uses it again.
export default async function RunLayout({ children, params }: { children: ReactNode; params: Promise<{ runId: string }> }) {
  await loadRun((await params).runId);
  return children;
}
