// Next.js calls register() once when the server starts. A server that cannot start (its embedded
// database held by another process, a bad setting, no database) says why and exits: Next.js would
// otherwise keep it running and answer every request with a bare 500.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer, stopOnStartFailure } = await import("./server/startup");
  await startServer().catch(stopOnStartFailure);
}
