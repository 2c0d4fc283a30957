import type Database from "better-sqlite3";
import { eq } from "drizzle-orm";
import { type Tx, engineOf } from "@/db/client";
import { queryGet } from "@/db/query";
import { sessions } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type ServiceContext, appendEvent, write } from "../context";
import { writeBatchOnPg } from "../log/batch-pg";
import { type BatchItem, type BatchOutcome, writeBatchOnSqlite } from "../log/batch-statements";
import { requireLogWriter } from "../log/common";
import { eventValues, interactionValues, reasoningValues } from "../log/log-row";
import { BatchRow } from "../log/schemas";
import { parseInput } from "../parse-input";
import { NotFoundError } from "@/server/domain/errors";

/** SQLite: the live batch's writer (log/batch-statements.ts), once the session is known to exist (an import writes a million rows). */
function writeOnSqlite(sqlite: Database.Database, sessionId: string, rows: readonly BatchItem[]): BatchOutcome[] {
  // The session must exist (a prepared lookup: a batch is written per few dozen rows).
  if (sqlite.prepare("SELECT 1 FROM sessions WHERE id = ?").get(sessionId) === undefined) throw new NotFoundError("session", sessionId);
  return writeBatchOnSqlite(sqlite, rows);
}

/** PostgreSQL: the live batch's multi-row writer (log/batch-pg.ts), in the transaction open in this call chain. */
async function writeOnPg(tx: Tx, sessionId: string, rows: readonly BatchItem[]): Promise<BatchOutcome[]> {
  if (!(await queryGet(tx.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, sessionId))))) throw new NotFoundError("session", sessionId);
  return writeBatchOnPg(tx, sessionId, rows);
}

/** One row of an imported history: a log batch row (`log.batch`'s shape) with the time the source gives it. */
export interface TimedRow {
  at: Date;
  row: BatchRow | Record<string, unknown>;
}

/** A row that already passed `BatchRow`'s check (the batcher checks each row as it arrives): not checked twice. */
export interface CheckedTimedRow {
  at: Date;
  checked: BatchRow;
}

export interface TimedBatchResult {
  /** Per input row: the stored row's id, or for an event whose idempotency key was used before, that row's id. */
  ids: { id: number; kind: "log" | "tokens"; created: boolean }[];
}

/**
 * `log.batch` for history: the same row checks, the same redaction and flagging, the same
 * prepared-statement writes and ONE `logs.appended` (or `tokens.logged`) event for the batch —
 * but every row keeps the time it happened, which an import must not lose. All or nothing: a
 * row that fails its check refuses the batch, naming `rows[i].field`.
 */
export async function importTimedLogBatch(
  ctx: ServiceContext,
  input: { sessionId: string; rows: readonly (TimedRow | CheckedTimedRow)[] },
): Promise<TimedBatchResult> {
  requireLogWriter(ctx, "import logs");
  const prepared = input.rows.map((timed): BatchItem => {
    const at = timed.at;
    const parsed = "checked" in timed ? timed.checked : parseInput(BatchRow, timed.row, "log.invalid_input");
    switch (parsed.kind) {
      case "interaction":
        return { kind: "log", values: interactionValues(input.sessionId, at, parsed) };
      case "reasoning":
        return { kind: "log", values: reasoningValues(input.sessionId, at, parsed) };
      case "event":
        return { kind: "log", values: eventValues(input.sessionId, at, parsed) };
      case "tokens":
        return {
          kind: "tokens",
          values: {
            sessionId: input.sessionId,
            timestamp: at,
            agentType: parsed.agentType,
            agentId: parsed.agentId ?? null,
            tokensEstimated: parsed.tokens,
            model: parsed.model ?? null,
          },
        };
    }
  });
  return write(ctx, async (tx) => {
    const outcomes =
      engineOf(ctx.db) === "postgres" ? await writeOnPg(tx, input.sessionId, prepared) : writeOnSqlite(ctx.db.$client, input.sessionId, prepared);
    const ids: TimedBatchResult["ids"] = [];
    const logs = { count: 0, firstId: null as number | null, lastId: null as number | null, redacted: 0, duplicates: 0 };
    const tokens = { count: 0, firstId: null as number | null, lastId: null as number | null, total: 0 };
    prepared.forEach((row, i) => {
      const { id, duplicate } = outcomes[i]!;
      if (row.kind === "tokens") {
        tokens.count += 1;
        tokens.firstId ??= id;
        tokens.lastId = id;
        tokens.total += row.values.tokensEstimated;
        ids.push({ id, kind: "tokens", created: true });
      } else if (duplicate) {
        logs.duplicates += 1;
        ids.push({ id, kind: "log", created: false });
      } else {
        logs.count += 1;
        logs.firstId ??= id;
        logs.lastId = id;
        if (row.values.redacted) logs.redacted += 1;
        ids.push({ id, kind: "log", created: true });
      }
    });
    if (logs.count > 0) {
      await appendEvent(tx, ctx, {
        type: EVENT_TYPES.logsAppended,
        sessionId: input.sessionId,
        entity: "session",
        entityId: input.sessionId,
        data: { ...logs, batch: true, imported: true },
      });
    }
    if (tokens.count > 0) {
      await appendEvent(tx, ctx, {
        type: EVENT_TYPES.tokensLogged,
        sessionId: input.sessionId,
        entity: "session",
        entityId: input.sessionId,
        data: { ...tokens, batch: true, imported: true },
      });
    }
    return { ids };
  });
}
