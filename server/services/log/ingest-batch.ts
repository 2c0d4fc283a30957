import type { z } from "zod";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type ServiceContext, nowOf, write } from "../context";
import { appendEventPrepared } from "../events/append";
import { loadSession } from "../session/load";
import { engineOf } from "@/db/client";
import { writeBatchOnPg } from "./batch-pg";
import { type BatchItem, type BatchOutcome, writeBatchOnSqlite } from "./batch-statements";
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

/** The result of a batch's rows as written on either engine, counted. */
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
    tally(result, rows, engineOf(ctx.db) === "postgres" ? await writeBatchOnPg(tx, input.sessionId, rows) : writeBatchOnSqlite(ctx.db.$client, rows));
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
