/**
 * Next.js calls `register` once when a server process starts (`next start`, `proofgate serve`):
 * the webhook dispatcher runs beside the request handlers, delivering the outbox that every write
 * fills (server/services/webhooks). Node.js runtime only: it opens the SQLite database.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerDispatcher } = await import("./server/services/webhooks/serve");
  startServerDispatcher();
}
