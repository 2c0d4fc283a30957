/**
 * A writer that never pauses, for the lock-fairness test: once told to go (IPC), it appends
 * `writes` log rows through the log service as fast as it can, one transaction each, and reports
 * how many it wrote and the error that stopped it, if any.
 *
 *   node --import tsx test/support/tight-writer.ts <db file | postgres:// url> <name> <writes>
 */
import { openLedger } from "@/db/client";
import { operatorActor } from "@/server/domain/actors";
import { logInteraction } from "@/server/services/log/log-interaction";

export interface TightWriterReport {
  name: string;
  written: number;
  error: string | null;
}

const [target, name, writes] = process.argv.slice(2);
// One connection, as each of SQLite's writers has: the fairness judged is between processes.
const db = await openLedger(target!, { migrate: false, poolSize: 1 });
const ctx = { db, actor: operatorActor(name!) };
process.on("message", () => void writeAll());

async function writeAll(): Promise<void> {
  const report: TightWriterReport = { name: name!, written: 0, error: null };
  try {
    for (let i = 0; i < Number(writes); i++) {
      await logInteraction(ctx, { sessionId: "tight", agentType: "developer", content: `${name} ${i}` });
      report.written += 1;
    }
  } catch (error) {
    report.error = `${(error as { code?: string }).code ?? ""} ${(error as Error).message}`;
  }
  process.send!(report, () => process.exit(0));
}
process.send!("ready");
