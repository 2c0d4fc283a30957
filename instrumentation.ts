/**
 * Next.js calls `register` once when a server process starts (`next start`, `proofgate serve`):
 * the webhook dispatcher runs beside the request handlers, delivering the outbox that every write
 * fills (server/services/webhooks). Node.js runtime only: it opens the ledger (a SQLite file, or PostgreSQL with PROOFGATE_DATABASE_URL).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // On PostgreSQL the ledger connects and migrates here, before the first request (getDb() cannot wait).
  const { openSharedLedger } = await import("./db/client");
  await openSharedLedger();
  const { startServerDispatcher } = await import("./server/services/webhooks/serve");
  startServerDispatcher();
}
