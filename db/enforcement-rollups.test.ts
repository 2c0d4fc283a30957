import { expect, it } from "vitest";
import { rebuildAnalyticsRollupsSql } from "./enforcement";
import { type Sqlite, addSession, freshSqlite, insertTask, setStatus, taskAt } from "@/test/support/db-fixtures";

const ROLLUP_COLUMNS = [
  "tasks_total",
  "tasks_pending",
  "tasks_in_progress",
  "tasks_claimed",
  "tasks_verified",
  "tasks_blocked",
  "tasks_completed",
  "tasks_unverified",
  "reset_requests",
  "criteria_total",
  "criteria_required",
  "criteria_required_met",
];

/** The rollups recounted from the rows: what the triggers must keep equal at every step. */
const RECOUNT = `
  SELECT s.id,
    (SELECT count(*) FROM tasks t WHERE t.session_id = s.id) AS tasks_total,
    ${["pending", "in_progress", "claimed", "verified", "blocked", "completed"]
      .map((status) => `(SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = '${status}') AS tasks_${status}`)
      .join(",\n    ")},
    (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'completed' AND t.verification = 'none') AS tasks_unverified,
    (SELECT count(*) FROM tasks t WHERE t.session_id = s.id AND t.status = 'blocked' AND t.reset_requested = 1) AS reset_requests,
    (SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id) AS criteria_total,
    (SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id AND c.required_for_completion = 1) AS criteria_required,
    (SELECT count(*) FROM success_criteria c WHERE c.session_id = s.id AND c.required_for_completion = 1
       AND (CASE WHEN c.verifier_status IS NULL THEN c.status ELSE c.verifier_status END) = 'met') AS criteria_required_met
  FROM sessions s ORDER BY s.id`;

const ANALYTICS_ROWS =
  "SELECT figure, day, source, agent, model, k1, k2, k3, n, total FROM analytics_rollups WHERE n <> 0 OR total <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8";

/** The analytics rollups as a recount from the tables would give them (counted, then rolled back). */
function recountedAnalytics(sqlite: Sqlite): unknown[] {
  sqlite.exec("SAVEPOINT recount");
  try {
    for (const statement of rebuildAnalyticsRollupsSql()) sqlite.exec(statement);
    return sqlite.prepare(ANALYTICS_ROWS).all();
  } finally {
    sqlite.exec("ROLLBACK TO recount");
    sqlite.exec("RELEASE recount");
  }
}

function expectExact(sqlite: Sqlite, step: string) {
  const stored = sqlite.prepare(`SELECT id, ${ROLLUP_COLUMNS.join(", ")} FROM sessions ORDER BY id`).all();
  expect(stored, step).toEqual(sqlite.prepare(RECOUNT).all());
  // The analytics rollups the triggers keep (criteria rates, blocked/failed criteria, unverified completions…).
  expect(sqlite.prepare(ANALYTICS_ROWS).all(), `${step}: analytics rollups`).toEqual(recountedAnalytics(sqlite));
}

it("session rollups equal a recount after every step of a scripted sequence", () => {
  const sqlite = freshSqlite();
  const step = (name: string, statements: () => void) => {
    statements();
    expectExact(sqlite, name);
  };
  const exec = (sql: string) => sqlite.exec(sql);
  const task = (session: string, key: string) => Number(sqlite.prepare("SELECT id FROM tasks WHERE session_id = ? AND key = ?").pluck().get(session, key));
  const criterion = (session: string, text: string, columns: Record<string, string | number> = {}) => {
    const names = ["session_id", "criterion", ...Object.keys(columns)];
    const sql = `INSERT INTO success_criteria (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
    sqlite.prepare(sql).run(session, text, ...Object.values(columns));
  };

  step("sessions", () => {
    addSession(sqlite, "a", "enforce");
    addSession(sqlite, "b", "observe");
    addSession(sqlite, "c", "enforce");
  });
  step("enforce tasks walked along the machine", () => {
    taskAt(sqlite, "a", "done", "completed");
    taskAt(sqlite, "a", "blocked", "blocked");
    taskAt(sqlite, "a", "claimed", "claimed");
    taskAt(sqlite, "a", "verified", "verified");
    taskAt(sqlite, "a", "working", "in_progress");
    insertTask(sqlite, "a", "todo");
    taskAt(sqlite, "c", "c1", "completed");
    taskAt(sqlite, "c", "c2", "blocked");
  });
  step("observe tasks inserted and reported off the machine", () => {
    exec(`INSERT INTO tasks (session_id, key, title, status, verification, reset_requested) VALUES
      ('b', 'imported_done', 't', 'completed', 'none', 0), ('b', 'imported_verified', 't', 'verified', 'none', 0),
      ('b', 'imported_blocked', 't', 'blocked', 'none', 1), ('b', 'imported_claimed', 't', 'claimed', NULL, 0),
      ('b', 'imported_working', 't', 'in_progress', NULL, 0), ('b', 'todo', 't', 'pending', NULL, 0)`);
    exec(`UPDATE tasks SET status = 'completed', verification = 'none' WHERE session_id = 'b' AND key = 'todo'`);
    exec(`UPDATE tasks SET status = 'completed' WHERE session_id = 'b' AND key = 'imported_verified'`);
  });
  step("an unverified completion reopened, and a blocked task reset requested", () => {
    exec(`UPDATE tasks SET status = 'pending', verification = 'none' WHERE session_id = 'b' AND key = 'todo'`);
    exec(`UPDATE tasks SET reset_requested = 1 WHERE key IN ('blocked', 'c2')`);
    exec(`UPDATE tasks SET reset_requested = 1 WHERE id = ${task("a", "working")}`); // a flag on a task that is not blocked
  });
  step("a reset approved, then the task walked again", () => {
    const id = task("a", "blocked");
    exec(`UPDATE tasks SET status = 'pending', reset_requested = 0, claimed_by = NULL, blocked_by = NULL, blocked_by_principal = NULL WHERE id = ${id}`);
    exec(`UPDATE tasks SET ${setStatus("claimed")} WHERE id = ${id}`);
    exec(`UPDATE tasks SET ${setStatus("verified")} WHERE id = ${task("a", "claimed")}`);
    exec(`UPDATE tasks SET ${setStatus("completed")} WHERE id = ${task("a", "verified")}`);
  });
  step("criteria inserted: required or not, met by the claim or by the verifier", () => {
    criterion("a", "pending required");
    criterion("a", "met required", { status: "met" });
    criterion("a", "met optional", { required_for_completion: 0 });
    exec(`UPDATE success_criteria SET status = 'met' WHERE criterion = 'met optional'`);
    criterion("a", "verifier says met", { verifier_status: "met" });
    criterion("a", "verifier says failed", { status: "met" });
    exec(`UPDATE success_criteria SET verifier_status = 'failed' WHERE criterion = 'verifier says failed'`);
    criterion("b", "observe criterion", { status: "met" });
    criterion("c", "c criterion", { status: "met" });
  });
  step("criteria moved, overridden and re-flagged", () => {
    exec(`UPDATE success_criteria SET status = 'met', actual = 'ok' WHERE criterion = 'pending required'`);
    exec(`UPDATE success_criteria SET required_for_completion = 1 WHERE criterion = 'met optional'`);
    exec(`UPDATE success_criteria SET verifier_status = NULL WHERE criterion = 'verifier says met'`);
    exec(`UPDATE success_criteria SET verifier_status = 'met' WHERE criterion = 'verifier says failed'`);
    exec(`UPDATE success_criteria SET status = 'blocked', evidence = 'external' WHERE criterion = 'observe criterion'`);
  });
  step("a required criterion made optional", () => {
    exec(`UPDATE success_criteria SET required_for_completion = 0 WHERE criterion = 'met required'`);
  });
  step("sessions moved to another start day, with their criteria", () => {
    exec(`UPDATE sessions SET started_at = started_at - 3 * 86400000 WHERE id IN ('a', 'b')`);
    exec(`UPDATE success_criteria SET status = 'failed' WHERE criterion = 'observe criterion'`);
  });
  step("unverified completions re-attributed and re-dated", () => {
    exec(`INSERT INTO sessions (id, enforcement, source, models) VALUES ('d', 'observe', 'demo', '{"developer": "model-x"}')`);
    exec(`INSERT INTO tasks (session_id, key, title, status, verification, assignee) VALUES ('d', 'done', 't', 'completed', 'none', 'developer_2')`);
    exec(`UPDATE tasks SET claimed_by = 'developer_4' WHERE session_id = 'd'`);
    exec(`UPDATE tasks SET assignee = 'developer_3' WHERE session_id = 'b' AND key = 'imported_done'`);
    exec(`UPDATE tasks SET completed_at = 86400000 * 20000 WHERE session_id = 'b' AND key = 'imported_done'`);
    exec(`UPDATE tasks SET updated_at = 86400000 * 20001 WHERE session_id = 'b' AND key = 'imported_verified'`);
  });
  step("a purge deletes a task in every status, criteria and a whole session", () => {
    exec("INSERT INTO purges (actor, reason) VALUES ('admin', 'cleanup')");
    const doomed = [
      ["a", "todo"],
      ["a", "working"],
      ["a", "blocked"],
      ["a", "claimed"],
      ["a", "verified"],
      ["b", "imported_verified"],
      ["b", "imported_blocked"],
    ];
    const before = sqlite
      .prepare("SELECT status FROM tasks WHERE id IN (" + doomed.map(([session, key]) => task(session!, key!)).join(", ") + ")")
      .pluck()
      .all();
    expect(new Set(before)).toEqual(new Set(["pending", "in_progress", "claimed", "verified", "completed", "blocked"]));
    exec(`DELETE FROM tasks WHERE id IN (${doomed.map(([session, key]) => task(session!, key!)).join(", ")})`);
    exec(`DELETE FROM success_criteria WHERE criterion IN ('met optional', 'verifier says failed')`);
    exec("DELETE FROM sessions WHERE id = 'c'");
    exec("UPDATE purges SET finished_at = 1 WHERE finished_at IS NULL");
  });

  const totals = sqlite.prepare("SELECT sum(tasks_total) AS tasks, sum(criteria_total) AS criteria, sum(tasks_unverified) AS unverified FROM sessions").get();
  // The script did what it says (so the equalities above were not between zeros).
  expect(totals).toEqual({ tasks: 6, criteria: 4, unverified: 2 });
  // And the analytics rollups of the figures read from current state were not all zeros either.
  const figures = sqlite
    .prepare(
      "SELECT figure, sum(n) AS n FROM analytics_rollups WHERE figure IN ('criteria', 'criterion_blocked', 'criterion_failed', 'unverified') GROUP BY 1 ORDER BY 1",
    )
    .all();
  expect(figures).toEqual([
    { figure: "criteria", n: 2 },
    { figure: "criterion_failed", n: 1 },
    { figure: "unverified", n: 2 },
  ]);
});
