import { UsageError } from "./errors";
import type { GlobalOptions } from "./options";

/**
 * The ledger a local-mode command opens: `--database-url` (PostgreSQL), `--db` (a SQLite file),
 * else PROOFGATE_DATABASE_URL, PROOFGATE_DB, ./data/proofgate.db (db/client.ts resolveLedger). A
 * choice that cannot be used is a usage error naming the flag or variable. Loads db/client only
 * when called, like every local-mode path.
 */
export async function ledgerTarget(globals: GlobalOptions): Promise<string> {
  const { LedgerChoiceError, resolveLedger } = await import("@/db/client");
  try {
    return resolveLedger({ db: globals.db, databaseUrl: globals.databaseUrl });
  } catch (error) {
    if (error instanceof LedgerChoiceError) throw new UsageError(error.message);
    throw error;
  }
}

/** A postgres:// target (without loading db/client). */
export function isPostgresTarget(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/**
 * The ledger a SQLite-only command works on: its file, or a usage error that names the command and
 * says what to do on PostgreSQL instead.
 */
export async function sqliteLedgerFile(globals: GlobalOptions, command: string, onPostgres: string): Promise<string> {
  const target = await ledgerTarget(globals);
  if (isPostgresTarget(target)) throw new UsageError(`${command}: works on a SQLite file, not on a PostgreSQL database; ${onPostgres}`);
  return target;
}

/** Whether the flags chose a local ledger explicitly (which beats PROOFGATE_URL). */
export function namesLocalLedger(globals: GlobalOptions): boolean {
  return Boolean(globals.db) || Boolean(globals.databaseUrl);
}
