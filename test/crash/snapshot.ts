// One read snapshot of the ledger, on either engine, through the engine's own driver (better-sqlite3
// or pg): no Proofgate code between the database and the verdict. The checks write their SQL once,
// with `?` placeholders, in the dialect both engines read.
import Database from "better-sqlite3";
import pg from "pg";
import { isPostgresUrl } from "@/db/pg/client";
import { BTREE_INDEX_CHECK_SQL, pgEnforcementState } from "@/db/pg/enforcement-state";

export type Engine = "sqlite" | "postgres";

export interface Snapshot {
  readonly engine: Engine;
  /** Every row of `query` (`?` placeholders). The first query of a snapshot fixes what it sees. */
  all<T>(query: string, ...params: unknown[]): Promise<T[]>;
  /** What the engine can say about its own storage, read last (a failed PostgreSQL check ends the transaction). */
  storageFailures(): Promise<string[]>;
  close(): Promise<void>;
}

/** Open a read snapshot of `target`: a SQLite file, or a postgres:// URL. */
export function openSnapshot(target: string): Promise<Snapshot> {
  return isPostgresUrl(target) ? openPgSnapshot(target) : Promise.resolve(openSqliteSnapshot(target));
}

function openSqliteSnapshot(file: string): Snapshot {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma("busy_timeout = 10000");
  db.exec("BEGIN");
  return {
    engine: "sqlite",
    all: async <T>(query: string, ...params: unknown[]) => db.prepare(query).all(...params) as T[],
    storageFailures: async () => {
      const failures: string[] = [];
      const integrity = db.pragma("integrity_check") as { integrity_check: string }[];
      if (integrity.length !== 1 || integrity[0]!.integrity_check !== "ok")
        failures.push(`PRAGMA integrity_check: ${integrity.map((r) => r.integrity_check).join("; ")}`);
      const foreignKeys = db.pragma("foreign_key_check") as unknown[];
      if (foreignKeys.length > 0) failures.push(`PRAGMA foreign_key_check: ${foreignKeys.length} rows point at nothing`);
      return failures;
    },
    close: async () => {
      if (db.inTransaction) db.exec("COMMIT");
      db.close();
    },
  };
}

const INT8 = 20;
/** The checker's connections, told apart from the servers' (`proofgate`) in pg_stat_activity. */
export const CHECKER_APPLICATION = "proofgate-crash-check";

/** A client of its own whose bigints (ids, count(*)) come back as numbers, as better-sqlite3's do. */
export async function connectPg(url: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: CHECKER_APPLICATION,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  return client;
}

async function openPgSnapshot(url: string): Promise<Snapshot> {
  const client = await connectPg(url);
  // As SQLite's deferred BEGIN: the snapshot is taken by the first query, not by BEGIN.
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  const all = async <T>(query: string, ...params: unknown[]) => {
    let n = 0;
    return (
      await client.query(
        query.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows as T[];
  };
  return {
    engine: "postgres",
    all,
    storageFailures: () => pgStorageFailures(all),
    close: async () => {
      try {
        await client.query("ROLLBACK");
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * PostgreSQL has no integrity_check, and the run kills Proofgate's server, not PostgreSQL: its files
 * are not at stake (the cluster runs with fsync on, but is never crashed). What a killed server
 * could break is checked by the row checks (its transactions commit whole or not at all) and by
 * `leftoverBackends` (its sessions are gone, no lock held); here, that every enforcement trigger
 * is still in place and enabled, every constraint validated, and — amcheck, as a sanity check of
 * the storage under all that — that every B-tree index agrees with its table
 * (`bt_index_check(…, heapallindexed)`: takes only AccessShareLock, so writers go on).
 */
async function pgStorageFailures(all: Snapshot["all"]): Promise<string[]> {
  const failures: string[] = [];
  const { missingTriggers: missing, disabledTriggers: disabled, alteredTriggers: altered, unvalidatedConstraints: unvalidated } = await pgEnforcementState(all);
  if (missing.length > 0) failures.push(`${missing.length} enforcement triggers missing: ${missing.map((t) => t.name).join(", ")}`);
  if (disabled.length > 0) failures.push(`${disabled.length} enforcement triggers disabled: ${disabled.map((t) => t.name).join(", ")}`);
  if (altered.length > 0) failures.push(`${altered.length} enforcement triggers differ from their definitions: ${altered.map((t) => t.name).join(", ")}`);
  if (unvalidated.length > 0) failures.push(`constraints not validated: ${unvalidated.map((c) => c.name).join(", ")}`);
  try {
    await all(BTREE_INDEX_CHECK_SQL);
  } catch (error) {
    failures.push(`amcheck bt_index_check: ${(error as Error).message}`);
  }
  return failures;
}
