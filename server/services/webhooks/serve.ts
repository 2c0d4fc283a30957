import { getDb } from "@/db/client";
import { type Dispatcher, startDispatcher } from "./dispatcher";

let running: Dispatcher | undefined;

/**
 * The server process's dispatcher (instrumentation.ts starts it with the server): one per process,
 * on the process-wide database. Several server processes on one database each run one; leases keep
 * them from delivering a row twice. PROOFGATE_WEBHOOKS=off leaves delivery to another process.
 */
export function startServerDispatcher(): Dispatcher | undefined {
  if (process.env.PROOFGATE_WEBHOOKS === "off") return undefined;
  running ??= startDispatcher(getDb());
  return running;
}
