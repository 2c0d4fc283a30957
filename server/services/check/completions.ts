import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { rawAll } from "@/db/query";
import type { FindingCollector } from "./findings";

interface CompletedSession {
  id: string;
  enforcement: "enforce" | "observe";
  rested: number | null;
  restedSession: string | null;
  restedAccepted: number | boolean | null;
  staleThrough: number;
  latest: number | null;
  latestAccepted: number | boolean | null;
}

/**
 * Every completed session rests on a completion check recorded for its completion, with nothing
 * the gate reads changed in between, and in an `enforce` session that check accepted it: what the
 * triggers of migration 0008 (db/completion-gate.ts) hold when a session completes, and record in
 * `completion_check_id`. A session completed by an older version, or written past the triggers,
 * has none: reported with what its own checks say.
 */
export async function checkCompletions(db: DbOrTx, found: FindingCollector): Promise<void> {
  // The camelCase aliases are quoted: PostgreSQL folds unquoted ones to lower case.
  const rows = await rawAll<CompletedSession>(
    db,
    sql`SELECT s.id, s.enforcement, s.completion_check_id AS rested, r.session_id AS "restedSession", r.accepted AS "restedAccepted",
              s.checks_stale_through AS "staleThrough", l.id AS latest, l.accepted AS "latestAccepted"
       FROM sessions s
       LEFT JOIN completion_checks r ON r.id = s.completion_check_id
       LEFT JOIN completion_checks l ON l.id = (SELECT max(c.id) FROM completion_checks c WHERE c.session_id = s.id)
       WHERE s.status = 'completed'
       ORDER BY s.id`,
  );
  found.examined("completed sessions", rows.length);
  for (const row of rows) {
    const problem = completionProblem(row);
    if (problem)
      found.add("session.completion_checked", { table: "sessions", id: row.id, sessionId: row.id }, `session ${row.id} (${row.enforcement}) ${problem}`);
  }
}

function completionProblem(s: CompletedSession): string | null {
  if (s.rested !== null) {
    if (s.restedSession !== s.id) return `is completed on completion check ${s.rested}, which is not one of its checks`;
    if (s.enforcement === "enforce" && !s.restedAccepted) return `is completed on completion check ${s.rested}, which rejected it`;
    return null;
  }
  if (s.latest === null) return "is completed without any completion check";
  if (s.enforcement === "enforce" && !s.latestAccepted) return `is completed, but its latest completion check (${s.latest}) rejected it`;
  if (s.latest <= s.staleThrough) {
    return `is completed, but its latest completion check (${s.latest}) is stale: its criteria, tasks or goal verdicts changed after it, or it predates the database's completion gate`;
  }
  return `is completed without the database recording the completion check it completed on (written past the completion gate's triggers)`;
}
