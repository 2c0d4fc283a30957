// A local-mode writer (what `proofgate --db FILE …` or `proofgate --database-url URL …` does) that
// writes while the server is down: the live client, reconnecting from its last event id, must then
// be sent these events too — a server that resumed "from now" would skip them, and the checks
// would see the gap.
import { closeLedger, openLedger } from "@/db/client";
import { operatorActor } from "@/server/domain/actors";
import { ingestBatch } from "@/server/services/log/ingest-batch";
import type { Ledger } from "./ledger";
import { batchRows } from "./writers";

/** Write `batches` small log batches as the local operator; each is acknowledged once its transaction returns. */
export async function writeLocally(target: string, sessionId: string, ledger: Ledger, name: string, batches: number): Promise<void> {
  const db = await openLedger(target, { poolSize: 1 });
  try {
    for (let i = 1; i <= batches; i++) {
      const batchId = `${name}.${i}`;
      const rows = batchRows(batchId, 25);
      const { ids } = await ingestBatch({ db, actor: operatorActor("cli-local") }, { sessionId, rows });
      ledger.batches.push({ batchId, logIds: ids.filter((_, j) => rows[j]!.kind !== "tokens"), tokenIds: ids.filter((_, j) => rows[j]!.kind === "tokens") });
    }
  } finally {
    await closeLedger(db);
  }
}
