import type Database from "better-sqlite3";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { orchestrationLogs, tokenUsage } from "@/db/schema";
import type { LogValues } from "./log-row";

export interface TokenValues {
  sessionId: string;
  timestamp: Date;
  agentType: string;
  agentId: string | null;
  tokensEstimated: number;
  model: string | null;
}

/** One row of a batch, redacted and ready to write: a log row or a token row. */
export type BatchItem = { kind: "log"; values: LogValues } | { kind: "tokens"; values: TokenValues };

/** What became of one row of a batch: the id it has, and whether it is an earlier row's (a repeated idempotency key). */
export interface BatchOutcome {
  id: number;
  duplicate: boolean;
}

const LOG_KEYS = [
  "sessionId",
  "timestamp",
  "iteration",
  "agentType",
  "agentId",
  "content",
  "logType",
  "reasoningPhase",
  "confidenceLevel",
  "referencesJson",
  "redacted",
  "groupId",
  "eventSubtype",
  "eventPayload",
  "idempotencyKey",
] as const satisfies readonly (keyof LogValues)[];
const TOKEN_KEYS = ["sessionId", "timestamp", "agentType", "agentId", "tokensEstimated", "model"] as const satisfies readonly (keyof TokenValues)[];

/**
 * An INSERT prepared once per connection, whose parameters are encoded through the Drizzle columns
 * (epoch-ms timestamps, JSON, booleans) so rows read back exactly as Drizzle-written ones do.
 */
function inserter<K extends string>(sqlite: Database.Database, table: SQLiteTable, keys: readonly K[]) {
  const columns = getTableColumns(table);
  const encoders = keys.map((key) => {
    const column = columns[key];
    if (!column) throw new Error(`${getTableName(table)} has no column ${key}`);
    return column;
  });
  const statement = sqlite.prepare(
    `INSERT INTO "${getTableName(table)}" (${encoders.map((c) => `"${c.name}"`).join(", ")}) VALUES (${keys.map(() => "?").join(", ")})`,
  );
  return (values: Record<K, unknown>): number => {
    const params = keys.map((key, i) => (values[key] === null ? null : encoders[i]!.mapToDriverValue(values[key])));
    return Number(statement.run(...params).lastInsertRowid);
  };
}

function build(sqlite: Database.Database) {
  const findEvent = sqlite.prepare<[string, string, string, string], { id: number }>(
    `SELECT id FROM orchestration_logs WHERE session_id = ? AND log_type = 'event' AND event_subtype = ? AND group_id = ? AND idempotency_key = ?`,
  );
  return {
    insertLog: inserter(sqlite, orchestrationLogs, LOG_KEYS) as (values: LogValues) => number,
    insertTokens: inserter(sqlite, tokenUsage, TOKEN_KEYS) as (values: TokenValues) => number,
    /** The id an idempotency key already stored, if any (served by the unique idempotency index). */
    findEvent: (v: LogValues): number | undefined =>
      v.eventSubtype !== null && v.groupId !== null && v.idempotencyKey !== null
        ? findEvent.get(v.sessionId, v.eventSubtype, v.groupId, v.idempotencyKey)?.id
        : undefined,
  };
}

export type BatchStatements = ReturnType<typeof build>;

const cache = new WeakMap<Database.Database, BatchStatements>();

/** The batch writer's prepared statements for this connection, prepared on first use. */
export function batchStatements(sqlite: Database.Database): BatchStatements {
  let statements = cache.get(sqlite);
  if (!statements) {
    statements = build(sqlite);
    cache.set(sqlite, statements);
  }
  return statements;
}

/**
 * SQLite: each row of a batch through its prepared statement, in input order, in the transaction
 * open on this connection (the live ingest's path, which the ingest benchmark measures, and the
 * import's). PostgreSQL's multi-row writer is writeBatchOnPg (batch-pg.ts).
 */
export function writeBatchOnSqlite(sqlite: Database.Database, rows: readonly BatchItem[]): BatchOutcome[] {
  const statements = batchStatements(sqlite);
  return rows.map((row) => {
    if (row.kind === "tokens") return { id: statements.insertTokens(row.values), duplicate: false };
    const existing = statements.findEvent(row.values);
    if (existing !== undefined) return { id: existing, duplicate: true };
    return { id: statements.insertLog(row.values), duplicate: false };
  });
}
