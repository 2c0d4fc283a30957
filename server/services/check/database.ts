import { sql } from "drizzle-orm";
import { type DbOrTx, engineOf } from "@/db/client";
import { rawAll, rawGet } from "@/db/query";
import { TASK_STATUSES } from "@/server/domain/task-machine";
import type { FindingCollector } from "./findings";

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The per-session counters the triggers keep (`tasks_*`, `criteria_*`, `reset_requests`) equal a
 * fresh count of the rows, so lists and progress bars never disagree with the ledger.
 */
export async function checkRollups(db: DbOrTx, found: FindingCollector): Promise<void> {
  // Counted with CASE, which both engines read the same (a boolean column is 0/1 on SQLite, true/false on PostgreSQL).
  const count = (condition: string) => `sum(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
  const statusCounts = TASK_STATUSES.map((s) => `${count(`status = '${s}'`)} AS tasks_${s}`).join(", ");
  const rows = await rawAll<Record<string, unknown>>(
    db,
    sql.raw(
      `WITH t AS (SELECT session_id, count(*) AS tasks_total, ${statusCounts},
                    ${count("status = 'completed' AND verification = 'none'")} AS tasks_unverified,
                    ${count("status = 'blocked' AND reset_requested")} AS reset_requests
                  FROM tasks GROUP BY session_id),
            c AS (SELECT session_id, count(*) AS criteria_total, ${count("required_for_completion")} AS criteria_required,
                    ${count("required_for_completion AND coalesce(verifier_status, status) = 'met'")} AS criteria_required_met
                  FROM success_criteria GROUP BY session_id)
       SELECT s.*, ${[...TASK_STATUSES.map((x) => `tasks_${x}`), "tasks_total", "tasks_unverified", "reset_requests"].map((col) => `coalesce(t.${col}, 0) AS counted_${col}`).join(", ")},
              ${["criteria_total", "criteria_required", "criteria_required_met"].map((col) => `coalesce(c.${col}, 0) AS counted_${col}`).join(", ")}
       FROM sessions s LEFT JOIN t ON t.session_id = s.id LEFT JOIN c ON c.session_id = s.id ORDER BY s.id`,
    ),
  );
  found.examined("sessions", rows.length);
  for (const row of rows) {
    const wrong = Object.keys(row)
      .filter((key) => key.startsWith("counted_"))
      .map((key) => key.slice("counted_".length))
      .filter((col) => Number(row[col]) !== Number(row[`counted_${col}`]))
      .map((col) => `${camel(col)} ${String(row[col])} (counted ${String(row[`counted_${col}`])})`);
    if (wrong.length > 0)
      found.add(
        "session.rollups",
        { table: "sessions", id: row.id as string, sessionId: row.id as string },
        `session ${String(row.id)} counters disagree with its rows: ${wrong.join(", ")}`,
      );
  }
}

/**
 * The sessions search index holds each session's id and requirements exactly once: a session
 * missing from it, or indexed with other requirements, would be missed or wrongly found by the
 * list's search. On SQLite that index is a table its triggers keep (`db/session-search.ts`); on
 * PostgreSQL it is an expression index (`sessions_search_idx`, migration 0002), right by
 * construction, so what can be wrong is its being missing or invalid (searches would then read
 * every session).
 */
export async function checkSearchIndex(db: DbOrTx, found: FindingCollector): Promise<void> {
  if (engineOf(db) === "postgres") await checkPgSearchIndex(db, found);
  else await checkSqliteSearchIndex(db, found);
}

async function checkPgSearchIndex(db: DbOrTx, found: FindingCollector): Promise<void> {
  const index = await rawGet<{ valid: boolean } | undefined>(
    db,
    sql`SELECT i.indisvalid AND i.indisready AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relname = 'sessions_search_idx' AND n.nspname = current_schema()`,
  );
  found.examined("sessions_search_idx", 1);
  if (!index) found.add("session.search_index", { table: "sessions" }, "the sessions search index sessions_search_idx is missing: searches read every session");
  else if (!index.valid)
    found.add(
      "session.search_index",
      { table: "sessions" },
      "the sessions search index sessions_search_idx is not valid (an interrupted build): searches read every session",
    );
}

async function checkSqliteSearchIndex(db: DbOrTx, found: FindingCollector): Promise<void> {
  const ids = async (query: string) => new Set((await rawAll<{ id: string }>(db, sql.raw(query))).map((row) => row.id));
  const notIndexed = await ids("SELECT id FROM (SELECT id, requirements FROM sessions EXCEPT SELECT id, requirements FROM sessions_search)");
  const notSessions = await ids("SELECT id FROM (SELECT id, requirements FROM sessions_search EXCEPT SELECT id, requirements FROM sessions)");
  const repeated = await rawAll<{ id: string; n: number }>(db, sql`SELECT id, count(*) AS n FROM sessions_search GROUP BY id HAVING count(*) > 1`);
  found.examined("sessions_search", (await rawGet<{ n: number }>(db, sql`SELECT count(*) AS n FROM sessions_search`)).n);
  const where = (id: string) => ({ table: "sessions", id, sessionId: id });
  for (const id of notIndexed) {
    const message = notSessions.has(id)
      ? `session ${id} is in the search index with other requirements than its own`
      : `session ${id} is missing from the search index`;
    found.add("session.search_index", where(id), message);
  }
  for (const id of notSessions) {
    if (notIndexed.has(id)) continue;
    const message = (await rawGet<unknown>(db, sql`SELECT 1 AS one FROM sessions WHERE id = ${id}`))
      ? `the search index has a stale row for session ${id} besides its current one`
      : `the search index has a row for session ${id}, which does not exist`;
    found.add("session.search_index", where(id), message);
  }
  for (const { id, n } of repeated) found.add("session.search_index", where(id), `session ${id} is in the search index ${n} times`);
}
