import type Database from "better-sqlite3";
import { TASK_STATUSES } from "@/server/domain/task-machine";
import type { FindingCollector } from "./findings";

/** SQLite's own checks: every page and index intact, every foreign key pointing at a row. */
export function checkStorage(sqlite: Database.Database, found: FindingCollector): void {
  const integrity = sqlite.pragma("integrity_check") as { integrity_check: string }[];
  found.examined("integrity_check", 1);
  for (const { integrity_check: message } of integrity) {
    if (message !== "ok") found.add("database.integrity", {}, `integrity_check: ${message}`);
  }
  const orphans = sqlite.pragma("foreign_key_check") as { table: string; rowid: number | null; parent: string; fkid: number }[];
  found.examined("foreign_key_check", 1);
  for (const orphan of orphans) {
    found.add(
      "database.foreign_keys",
      { table: orphan.table, id: orphan.rowid },
      `${orphan.table} row ${orphan.rowid ?? "?"} refers to a ${orphan.parent} row that does not exist`,
    );
  }
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The per-session counters the triggers keep (`tasks_*`, `criteria_*`, `reset_requests`) equal a
 * fresh count of the rows, so lists and progress bars never disagree with the ledger.
 */
export function checkRollups(sqlite: Database.Database, found: FindingCollector): void {
  const statusCounts = TASK_STATUSES.map((s) => `sum(status = '${s}') AS tasks_${s}`).join(", ");
  const rows = sqlite
    .prepare(
      `WITH t AS (SELECT session_id, count(*) AS tasks_total, ${statusCounts},
                    sum(status = 'completed' AND verification IS 'none') AS tasks_unverified,
                    sum(status = 'blocked' AND reset_requested) AS reset_requests
                  FROM tasks GROUP BY session_id),
            c AS (SELECT session_id, count(*) AS criteria_total, sum(required_for_completion) AS criteria_required,
                    sum(required_for_completion AND coalesce(verifier_status, status) = 'met') AS criteria_required_met
                  FROM success_criteria GROUP BY session_id)
       SELECT s.*, ${[...TASK_STATUSES.map((x) => `tasks_${x}`), "tasks_total", "tasks_unverified", "reset_requests"].map((col) => `coalesce(t.${col}, 0) AS counted_${col}`).join(", ")},
              ${["criteria_total", "criteria_required", "criteria_required_met"].map((col) => `coalesce(c.${col}, 0) AS counted_${col}`).join(", ")}
       FROM sessions s LEFT JOIN t ON t.session_id = s.id LEFT JOIN c ON c.session_id = s.id`,
    )
    .all() as Record<string, unknown>[];
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
 * The sessions search index (`db/session-search.ts`) holds each session's id and requirements
 * exactly once: a session missing from it, or indexed with other requirements, would be missed or
 * wrongly found by the list's search.
 */
export function checkSearchIndex(sqlite: Database.Database, found: FindingCollector): void {
  const ids = (query: string) => new Set(sqlite.prepare(query).pluck().all() as string[]);
  const notIndexed = ids("SELECT id FROM (SELECT id, requirements FROM sessions EXCEPT SELECT id, requirements FROM sessions_search)");
  const notSessions = ids("SELECT id FROM (SELECT id, requirements FROM sessions_search EXCEPT SELECT id, requirements FROM sessions)");
  const repeated = sqlite.prepare("SELECT id, count(*) AS n FROM sessions_search GROUP BY id HAVING count(*) > 1").all() as { id: string; n: number }[];
  found.examined("sessions_search", Number(sqlite.prepare("SELECT count(*) FROM sessions_search").pluck().get()));
  const where = (id: string) => ({ table: "sessions", id, sessionId: id });
  for (const id of notIndexed) {
    const message = notSessions.has(id)
      ? `session ${id} is in the search index with other requirements than its own`
      : `session ${id} is missing from the search index`;
    found.add("session.search_index", where(id), message);
  }
  const exists = sqlite.prepare("SELECT 1 FROM sessions WHERE id = ?").pluck();
  for (const id of notSessions) {
    if (notIndexed.has(id)) continue;
    const message = exists.get(id)
      ? `the search index has a stale row for session ${id} besides its current one`
      : `the search index has a row for session ${id}, which does not exist`;
    found.add("session.search_index", where(id), message);
  }
  for (const { id, n } of repeated) found.add("session.search_index", where(id), `session ${id} is in the search index ${n} times`);
}
