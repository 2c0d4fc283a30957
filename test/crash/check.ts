// One check of the ledger after a restart, on one read snapshot taken while the clients keep writing:
// the acknowledgements are copied first, so every one of them was answered — so committed — before
// the snapshot. (Copied after it, across an await, answers that arrived meanwhile would be counted
// for writes the snapshot cannot see.)
import { type RowCheck, checkBatches, checkCriteria, checkRollups, checkTasks } from "./check-rows";
import type { Ledger } from "./ledger";
import { openSnapshot } from "./snapshot";

/** What a live client delivered (LiveFollower's record). */
export interface LiveRecord {
  readonly ids: number[];
  readonly problems: string[];
  readonly lastId: number;
  waitFor(id: number, timeoutMs: number): Promise<boolean>;
}

export interface CheckResult extends RowCheck {
  /** The newest event in the snapshot, and every event id after the follower's start up to it. */
  maxEventId: number;
  eventIds: number[];
}

/** Check the ledger at `target` (a SQLite file or a postgres:// URL). */
export async function checkDatabase(target: string, sessionId: string, ledger: Ledger, liveFromId: number): Promise<CheckResult> {
  const acks = ledger.snapshot();
  const db = await openSnapshot(target);
  const out: CheckResult = { failures: [], verified: 0, actions: 0, maxEventId: 0, eventIds: [] };
  try {
    // The first read fixes the snapshot.
    out.maxEventId = (await db.all<{ id: number }>("SELECT coalesce(max(id), 0) AS id FROM events"))[0]!.id;
    await checkTasks(db, sessionId, acks.tasks, out);
    await checkCriteria(db, sessionId, acks.criteria, out);
    await checkBatches(db, sessionId, acks.batches, out);
    await checkRollups(db, sessionId, out);
    out.eventIds = (await db.all<{ id: number }>("SELECT id FROM events WHERE id > ? ORDER BY id", liveFromId)).map((row) => row.id);
    out.failures.push(...(await db.storageFailures()));
  } finally {
    await db.close();
  }
  return out;
}

/**
 * The live stream, once it has caught up with the snapshot, delivered exactly the table's event ids
 * up to it, in order: no gap, no duplicate. (Anything delivered beyond is checked next time.)
 */
export async function checkLive(follower: LiveRecord, snapshot: CheckResult, timeoutMs: number): Promise<string[]> {
  const failures = [...follower.problems];
  if (!(await follower.waitFor(snapshot.maxEventId, timeoutMs))) {
    return [...failures, `the live stream did not catch up with event ${snapshot.maxEventId} within ${timeoutMs} ms (last delivered: ${follower.lastId})`];
  }
  const delivered = follower.ids;
  for (let i = 1; i < delivered.length; i++) {
    if (delivered[i]! <= delivered[i - 1]!) {
      failures.push(
        `the live stream delivered event ${delivered[i]} after ${delivered[i - 1]} (${delivered[i] === delivered[i - 1] ? "a duplicate" : "out of order"})`,
      );
      break;
    }
  }
  const upTo = delivered.filter((id) => id <= snapshot.maxEventId);
  const sent = new Set(upTo);
  const inTable = new Set(snapshot.eventIds);
  const missing = snapshot.eventIds.filter((id) => !sent.has(id));
  const unknown = upTo.filter((id) => !inTable.has(id));
  const list = (ids: number[]) => `${ids.slice(0, 8).join(", ")}${ids.length > 8 ? ", …" : ""}`;
  if (missing.length > 0) failures.push(`the live stream skipped ${missing.length} of ${snapshot.eventIds.length} events (ids ${list(missing)})`);
  if (unknown.length > 0) failures.push(`the live stream delivered ${unknown.length} events the table does not have (ids ${list(unknown)})`);
  return failures;
}
