// Next.js calls register() once when the server starts. A server that cannot start (its embedded
// database held by another process, a bad setting, no database) says why and exits: Next.js would
// otherwise keep it running and answer every request with a bare 500.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // `next build` calls register() in its page-generation workers too. A build opens no database: an
  // image build has none, one with DATABASE_URL set must not reach production, and a worker that took
  // DATA_DIR's lock left it behind for the `next start` that followed.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { startServer, stopOnStartFailure } = await import("./server/startup");
  await startServer().catch(stopOnStartFailure);
}
