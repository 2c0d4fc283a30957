import { EVENT_TYPES } from "@/server/domain/event-types";
import { type ServiceContext, appendEvent, write } from "../context";
import { type TokenValues, batchStatements } from "../log/batch-statements";
import { requireLogWriter } from "../log/common";
import { type LogValues, eventValues, interactionValues, reasoningValues } from "../log/log-row";
import { BatchRow } from "../log/schemas";
import { parseInput } from "../parse-input";
import { NotFoundError } from "@/server/domain/errors";

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
  const prepared = input.rows.map((timed): { kind: "log"; values: LogValues } | { kind: "tokens"; values: TokenValues } => {
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
    // The session must exist (a prepared lookup: a batch is written per few dozen rows).
    if (ctx.db.$client.prepare("SELECT 1 FROM sessions WHERE id = ?").get(input.sessionId) === undefined) throw new NotFoundError("session", input.sessionId);
    const statements = batchStatements(ctx.db.$client);
    const ids: TimedBatchResult["ids"] = [];
    const logs = { count: 0, firstId: null as number | null, lastId: null as number | null, redacted: 0, duplicates: 0 };
    const tokens = { count: 0, firstId: null as number | null, lastId: null as number | null, total: 0 };
    for (const row of prepared) {
      if (row.kind === "tokens") {
        const id = statements.insertTokens(row.values);
        tokens.count += 1;
        tokens.firstId ??= id;
        tokens.lastId = id;
        tokens.total += row.values.tokensEstimated;
        ids.push({ id, kind: "tokens", created: true });
        continue;
      }
      const existing = statements.findEvent(row.values);
      if (existing !== undefined) {
        logs.duplicates += 1;
        ids.push({ id: existing, kind: "log", created: false });
        continue;
      }
      const id = statements.insertLog(row.values);
      logs.count += 1;
      logs.firstId ??= id;
      logs.lastId = id;
      if (row.values.redacted) logs.redacted += 1;
      ids.push({ id, kind: "log", created: true });
    }
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
