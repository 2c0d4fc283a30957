// One check of the database file after a restart, on one read snapshot taken while the clients keep
// writing: the acknowledgements copied inside the snapshot were all answered — so committed — before it.
import Database from "better-sqlite3";
import { type RowCheck, checkBatches, checkCriteria, checkRollups, checkTasks } from "./check-rows";
import type { Ledger } from "./ledger";

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

export function checkDatabase(file: string, sessionId: string, ledger: Ledger, liveFromId: number): CheckResult {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const out: CheckResult = { failures: [], verified: 0, actions: 0, maxEventId: 0, eventIds: [] };
  try {
    db.pragma("busy_timeout = 10000");
    db.exec("BEGIN");
    // The first read fixes the snapshot; only then are the acknowledgements copied.
    out.maxEventId = (db.prepare("SELECT coalesce(max(id), 0) AS id FROM events").get() as { id: number }).id;
    const acks = ledger.snapshot();
    const integrity = db.pragma("integrity_check") as { integrity_check: string }[];
    if (integrity.length !== 1 || integrity[0]!.integrity_check !== "ok")
      out.failures.push(`PRAGMA integrity_check: ${integrity.map((r) => r.integrity_check).join("; ")}`);
    const foreignKeys = db.pragma("foreign_key_check") as unknown[];
    if (foreignKeys.length > 0) out.failures.push(`PRAGMA foreign_key_check: ${foreignKeys.length} rows point at nothing`);
    checkTasks(db, sessionId, acks.tasks, out);
    checkCriteria(db, sessionId, acks.criteria, out);
    checkBatches(db, sessionId, acks.batches, out);
    checkRollups(db, sessionId, out);
    out.eventIds = db.prepare("SELECT id FROM events WHERE id > ? ORDER BY id").pluck().all(liveFromId) as number[];
    db.exec("COMMIT");
  } finally {
    db.close();
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
