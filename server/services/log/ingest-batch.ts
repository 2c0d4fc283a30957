import type Database from "better-sqlite3";
import type { z } from "zod";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type ServiceContext, nowOf, write } from "../context";
import { appendEventPrepared } from "../events/append";
import { loadSession } from "../session/load";
import { engineOf } from "@/db/client";
import { type BatchOutcome, writeBatchOnPg } from "./batch-pg";
import { type BatchItem, batchStatements } from "./batch-statements";
import { requireLogWriter } from "./common";
import { eventValues, interactionValues, reasoningValues } from "./log-row";
import { type BatchRow, IngestBatchInput } from "./schemas";
import { parseInput } from "../parse-input";

export interface IdRange {
  count: number;
  firstId: number | null;
  lastId: number | null;
}

export interface IngestBatchResult {
  /** One id per input row, in order: the stored row, or for a repeated idempotency key the row stored before. */
  ids: number[];
  logs: IdRange & { redacted: number; duplicates: number };
  tokens: IdRange & { total: number };
}

function prepare(sessionId: string, at: Date, row: BatchRow): BatchItem {
  switch (row.kind) {
    case "interaction":
      return { kind: "log", values: interactionValues(sessionId, at, row) };
    case "reasoning":
      return { kind: "log", values: reasoningValues(sessionId, at, row) };
    case "event":
      return { kind: "log", values: eventValues(sessionId, at, row) };
    case "tokens":
      return {
        kind: "tokens",
        values: { sessionId, timestamp: at, agentType: row.agentType, agentId: row.agentId ?? null, tokensEstimated: row.tokens, model: row.model ?? null },
      };
  }
}

function extend(range: IdRange, id: number): void {
  range.count += 1;
  range.firstId ??= id;
  range.lastId = id;
}

/** SQLite: each row through its prepared statement, in input order (the ingest benchmark's path). */
function writeOnSqlite(sqlite: Database.Database, result: IngestBatchResult, rows: readonly BatchItem[]): void {
  const statements = batchStatements(sqlite);
  for (const row of rows) {
    if (row.kind === "tokens") {
      const id = statements.insertTokens(row.values);
      extend(result.tokens, id);
      result.tokens.total += row.values.tokensEstimated;
      result.ids.push(id);
      continue;
    }
    const existing = statements.findEvent(row.values);
    if (existing !== undefined) {
      result.logs.duplicates += 1;
      result.ids.push(existing);
      continue;
    }
    const id = statements.insertLog(row.values);
    extend(result.logs, id);
    if (row.values.redacted) result.logs.redacted += 1;
    result.ids.push(id);
  }
}

/** PostgreSQL: the result of rows already written (batch-pg.ts), counted as writeOnSqlite counts them. */
function tally(result: IngestBatchResult, rows: readonly BatchItem[], outcomes: readonly BatchOutcome[]): void {
  rows.forEach((row, i) => {
    const { id, duplicate } = outcomes[i]!;
    result.ids.push(id);
    if (row.kind === "tokens") {
      extend(result.tokens, id);
      result.tokens.total += row.values.tokensEstimated;
    } else if (duplicate) {
      result.logs.duplicates += 1;
    } else {
      extend(result.logs, id);
      if (row.values.redacted) result.logs.redacted += 1;
    }
  });
}

/**
 * Ingest up to 1000 logs, reasoning entries, events and token rows for one session in one call.
 * The whole batch is validated first: one bad row refuses it all with a ValidationError naming
 * `rows[i].field`, and nothing is written. Then every row is redacted and written in one
 * transaction through prepared statements, with ONE `events` row for the batch
 * (`logs.appended`, or `tokens.logged` for a tokens-only batch) carrying counts and id ranges.
 */
export async function ingestBatch(ctx: ServiceContext, raw: IngestBatchInput): Promise<IngestBatchResult> {
  requireLogWriter(ctx, "ingest log batches");
  return ingestParsedBatch(ctx, parseInput(IngestBatchInput, raw, "log.invalid_input"));
}

/**
 * `ingestBatch` for an input IngestBatchInput already parsed (the API's procedure, whose input
 * schema it is): validating 500 rows again cost a tenth of the call.
 */
export async function ingestParsedBatch(ctx: ServiceContext, input: z.output<typeof IngestBatchInput>): Promise<IngestBatchResult> {
  requireLogWriter(ctx, "ingest log batches");
  const at = nowOf(ctx);
  const rows = input.rows.map((row) => prepare(input.sessionId, at, row));
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const result: IngestBatchResult = {
      ids: [],
      logs: { count: 0, firstId: null, lastId: null, redacted: 0, duplicates: 0 },
      tokens: { count: 0, firstId: null, lastId: null, total: 0 },
    };
    if (engineOf(ctx.db) === "postgres") tally(result, rows, await writeBatchOnPg(tx, input.sessionId, rows));
    else writeOnSqlite(ctx.db.$client, result, rows);
    if (result.logs.count > 0 || result.tokens.count > 0) {
      const logsFirst = result.logs.count > 0;
      await appendEventPrepared(ctx, {
        type: logsFirst ? EVENT_TYPES.logsAppended : EVENT_TYPES.tokensLogged,
        sessionId: input.sessionId,
        entity: "session",
        entityId: input.sessionId,
        data: logsFirst ? { ...result.logs, batch: true, tokens: result.tokens } : { ...result.tokens, batch: true },
      });
    }
    return result;
  });
}
