import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { queryAll } from "@/db/query";
import { orchestrationLogs, tokenUsage } from "@/db/schema";
import type { BatchItem, BatchOutcome, TokenValues } from "./batch-statements";
import type { LogValues } from "./log-row";

/**
 * Rows per multi-row INSERT on PostgreSQL. A statement binds at most 65,535 parameters; a log row
 * takes 15, so 500 rows (7,500) are far within it, and a full batch (MAX_BATCH_ROWS, 1000) spans
 * two statements — the engines test (log.engines.test.ts) writes one, so the path across statements
 * is the one tested.
 */
export const PG_ROWS_PER_INSERT = 500;

/** The key an event's repeat is recognised by (the unique idempotency index), or undefined when it has none. */
function idempotencyKeyOf(values: Pick<LogValues, "eventSubtype" | "groupId" | "idempotencyKey">): string | undefined {
  if (values.eventSubtype === null || values.groupId === null || values.idempotencyKey === null) return undefined;
  return JSON.stringify([values.eventSubtype, values.groupId, values.idempotencyKey]);
}

/**
 * The batch writer on PostgreSQL: the rows SQLite's prepared statements write one at a time
 * (batch-statements.ts), written with multi-row INSERTs, in the write transaction open in this call
 * chain. It answers as that loop does, row for row in input order: an event whose idempotency key
 * is already stored, or came earlier in the batch, is not written and has that row's id.
 *
 * Each table's rows are inserted in input order, so their ids rise in input order as SQLite's do
 * (the writer lock serialises writers; ids come from each table's identity). The ids RETURNING
 * gives are sorted before they are matched to the rows: PostgreSQL does not promise RETURNING's
 * order, but identity values are drawn in the order the VALUES rows are inserted.
 */
export async function writeBatchOnPg(db: DbOrTx, sessionId: string, rows: readonly BatchItem[]): Promise<BatchOutcome[]> {
  const stored = await storedKeys(db, sessionId, rows);
  const outcomes: BatchOutcome[] = new Array<BatchOutcome>(rows.length);
  const logs: { index: number[]; values: LogValues[] } = { index: [], values: [] };
  const tokens: { index: number[]; values: TokenValues[] } = { index: [], values: [] };
  const firstWithKey = new Map<string, number>();
  const repeats: [index: number, first: number][] = [];
  rows.forEach((row, index) => {
    if (row.kind === "tokens") {
      tokens.index.push(index);
      tokens.values.push(row.values);
      return;
    }
    const key = idempotencyKeyOf(row.values);
    if (key !== undefined) {
      const existing = stored.get(key);
      if (existing !== undefined) {
        outcomes[index] = { id: existing, duplicate: true };
        return;
      }
      const first = firstWithKey.get(key);
      if (first !== undefined) {
        repeats.push([index, first]);
        return;
      }
      firstWithKey.set(key, index);
    }
    logs.index.push(index);
    logs.values.push(row.values);
  });
  await insertInChunks(logs.values, logs.index, outcomes, async (chunk) =>
    queryAll(db.insert(orchestrationLogs).values(chunk).returning({ id: orchestrationLogs.id })),
  );
  await insertInChunks(tokens.values, tokens.index, outcomes, async (chunk) => queryAll(db.insert(tokenUsage).values(chunk).returning({ id: tokenUsage.id })));
  for (const [index, first] of repeats) outcomes[index] = { id: outcomes[first]!.id, duplicate: true };
  return outcomes;
}

/** The ids of the events already stored under the idempotency keys this batch carries (at most 1000 keys: one statement). */
async function storedKeys(db: DbOrTx, sessionId: string, rows: readonly BatchItem[]): Promise<Map<string, number>> {
  const keys = new Set<string>();
  for (const row of rows) if (row.kind === "log" && idempotencyKeyOf(row.values) !== undefined) keys.add(row.values.idempotencyKey!);
  const stored = new Map<string, number>();
  if (keys.size === 0) return stored;
  const t = orchestrationLogs;
  const found = await queryAll(
    db
      .select({ id: t.id, eventSubtype: t.eventSubtype, groupId: t.groupId, idempotencyKey: t.idempotencyKey })
      .from(t)
      .where(and(eq(t.sessionId, sessionId), eq(t.logType, "event"), inArray(t.idempotencyKey, [...keys]))),
  );
  for (const row of found) {
    const key = idempotencyKeyOf(row);
    if (key !== undefined) stored.set(key, row.id);
  }
  return stored;
}

/** Insert `values` PG_ROWS_PER_INSERT at a time and record each row's id at its place in the batch. */
async function insertInChunks<V>(
  values: readonly V[],
  index: readonly number[],
  outcomes: BatchOutcome[],
  insert: (chunk: V[]) => Promise<{ id: number }[]>,
): Promise<void> {
  for (let start = 0; start < values.length; start += PG_ROWS_PER_INSERT) {
    const chunk = values.slice(start, start + PG_ROWS_PER_INSERT);
    const ids = (await insert(chunk)).map((row) => row.id).sort((a, b) => a - b);
    if (ids.length !== chunk.length) throw new Error(`log batch: ${chunk.length} rows inserted, ${ids.length} ids returned`);
    ids.forEach((id, i) => {
      outcomes[index[start + i]!] = { id, duplicate: false };
    });
  }
}
