// flake-risks time: any finished time will do: the row needs one, nothing compares it
import { beforeEach, describe, expect, it } from "vitest";
import { APPEND_ONLY_TABLES } from "./enforcement";
import { type Sqlite, addSession, count, expectRefused, expectRule, freshSqlite, row, taskAt } from "@/test/support/db-fixtures";

// DESIGN.md's history tables, written out so that dropping one from APPEND_ONLY_TABLES fails here.
const HISTORY = [
  "task_transitions",
  "criterion_updates",
  "completion_checks",
  "goal_gate_evaluations",
  "trust_scores",
  "goals",
  "validation_steps",
  "branches",
  "worktrees",
  "attempts",
  "tools",
  "attempt_tools",
  "attempt_results",
  "tool_calls",
  "validation_runs",
  "merges",
  "orchestration_logs",
  "state_snapshots",
  "token_usage",
  "skill_outputs",
  "decisions",
  "events",
];
const PURGE_ONLY = ["sessions", "tasks", "success_criteria", "goal_contracts", "acceptance_criteria"];

/** One valid row in every table that hangs off a session, returning each row's id by table. */
function populateSession(sqlite: Sqlite, session: string): Record<string, number | string> {
  addSession(sqlite, session);
  const ids: Record<string, number | string> = { sessions: session };
  const insert = (table: string, values: Record<string, unknown>) => {
    const columns = Object.keys(values);
    const sql = `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
    ids[table] = Number(sqlite.prepare(sql).run(...Object.values(values)).lastInsertRowid);
    return ids[table] as number;
  };
  const s = { session_id: session };
  const task = taskAt(sqlite, session, "T1", "claimed");
  ids.tasks = task;
  insert("task_transitions", { ...s, task_id: task, move: "claim", from_status: "pending", to_status: "claimed", actor: "developer_1" });
  const criterion = insert("success_criteria", { ...s, criterion: "tests pass" });
  insert("criterion_updates", { ...s, criterion_id: criterion, kind: "create", actor: "pm" });
  insert("completion_checks", { ...s, accepted: 0, reasons: "[]", met_count: 0, total_count: 1, actor: "orchestrator" });
  const goal = insert("goals", { ...s, goal_text: "ship it" });
  insert("validation_steps", { goal_id: goal, order: 1, command: "npm test" });
  const branch = insert("branches", { ...s, name: "main" });
  const worktree = insert("worktrees", { branch_id: branch, path: "/tmp/wt" });
  const attempt = insert("attempts", { goal_id: goal, worktree_id: worktree });
  const tool = insert("tools", { ...s, name: "bash" });
  insert("attempt_tools", { attempt_id: attempt, tool_id: tool });
  const result = insert("attempt_results", { attempt_id: attempt, status: "success" });
  insert("tool_calls", { attempt_id: attempt, order: 1, tool_id: tool, tool_name: "bash" });
  insert("validation_runs", { validation_step_id: ids.validation_steps, attempt_result_id: result, exit_code: 0 });
  insert("merges", { from_branch_id: branch, from_commit_sha: "a", to_branch_id: branch, to_commit_sha: "b", result_commit_sha: "c" });
  const contract = insert("goal_contracts", { goal_id: goal, goal_text: "ship it" });
  insert("acceptance_criteria", { contract_id: contract, key: "AC1", position: 1, kind: "finding_count", min_count: 1 });
  insert("goal_gate_evaluations", {
    goal_id: goal,
    contract_id: contract,
    attempt_id: attempt,
    attempt_number: 1,
    trust_passed: 1,
    goal_status: "MET",
    met_count: 1,
    total_count: 1,
    criteria_results: "[]",
    verdict: "SUCCESS",
    reason: "all met",
    actor: "verifier_1",
  });
  insert("trust_scores", { attempt_id: attempt, score: 90, actor: "verifier_1" });
  insert("orchestration_logs", { ...s, agent_type: "pm", content: "hello" });
  insert("state_snapshots", { ...s, state_type: "pm", state_data: "{}" });
  insert("token_usage", { ...s, agent_type: "pm", tokens_estimated: 10 });
  insert("skill_outputs", { ...s, skill_name: "lint", output_data: "{}" });
  insert("decisions", { ...s, decision_type: "plan", decision_data: "{}" });
  insert("development_plans", { ...s, original_prompt: "p", plan_text: "t", phases: "[]", total_phases: 1 });
  const pkg = insert("context_packages", { ...s, package_type: "research", file_path: "a.md", producer_agent: "pm", summary: "s" });
  insert("context_package_consumers", { package_id: pkg, agent_type: "developer" });
  insert("consumption_scope", { ...s, scope_id: `${session}-scope`, group_id: "A", agent_type: "developer", iteration: 1, package_id: pkg });
  insert("events", { ...s, type: "task.claimed", entity: "task", actor: "developer_1" });
  const runtime = insert("runtime_sessions", { runtime: "claude-code", external_id: `rt-${session}`, source: "startup" });
  sqlite.prepare("INSERT INTO runtime_session_links (session_id, runtime_session_id) VALUES (?, ?)").run(session, runtime);
  return ids;
}

/** Every table a session delete cascades into, following foreign keys with ON DELETE CASCADE. */
function cascadeTables(sqlite: Sqlite): string[] {
  const tables = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
  const found = new Set(["sessions"]);
  for (let grew = true; grew;) {
    grew = false;
    for (const table of tables) {
      const keys = sqlite.pragma(`foreign_key_list(${table})`) as { table: string; on_delete: string }[];
      if (!found.has(table) && keys.some((k) => found.has(k.table) && k.on_delete === "CASCADE")) {
        found.add(table);
        grew = true;
      }
    }
  }
  return [...found];
}

const timeColumn = (sqlite: Sqlite, table: string) =>
  (sqlite.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).find((c) => c === "at" || c === "timestamp");

let sqlite: Sqlite;
let ids: Record<string, number | string>;
beforeEach(() => {
  sqlite = freshSqlite();
  ids = populateSession(sqlite, "s1");
});

describe("history tables", () => {
  it("are exactly the append-only tables the triggers cover, and the fixture has a row in each", () => {
    expect([...APPEND_ONLY_TABLES].sort()).toEqual([...HISTORY].sort());
    for (const table of HISTORY) expect(row(sqlite, table, ids[table]!), table).toBeDefined();
  });

  it.each(HISTORY)("%s refuses UPDATE and DELETE", (table) => {
    const id = ids[table]!;
    const column = timeColumn(sqlite, table);
    expect(column, `${table} has a time column to rewrite`).toBeDefined();
    // The message names the table: a cascade into a child's trigger must not pass for this table's own.
    expectRefused(sqlite, table, id, `UPDATE ${table} SET "${column}" = "${column}" - 86400000 WHERE id = ${id}`, `append_only: ${table} `);
    expectRefused(sqlite, table, id, `DELETE FROM ${table} WHERE id = ${id}`, `append_only: ${table} `);
  });

  it.each(PURGE_ONLY)("%s refuses DELETE outside a purge", (table) => {
    const id = ids[table]!;
    // The fixture's contract was evaluated, so its criterion is refused by both rules; SQLite runs the
    // later-created trigger first (observed, not promised), which names the contract rule.
    expectRefused(
      sqlite,
      table,
      id,
      `DELETE FROM ${table} WHERE id = '${id}'`,
      table === "acceptance_criteria" ? "goal_contract.immutable" : `purge_only: ${table} `,
    );
  });

  it("acceptance criteria of a contract nobody evaluated are still purge-only", () => {
    sqlite.exec("INSERT INTO goals (session_id, goal_text) VALUES ('s1', 'g2')");
    const goal = Number(sqlite.prepare("SELECT max(id) AS id FROM goals").pluck().get());
    sqlite.prepare("INSERT INTO goal_contracts (goal_id, goal_text) VALUES (?, 'g2')").run(goal);
    const contract = Number(sqlite.prepare("SELECT max(id) FROM goal_contracts").pluck().get());
    const id = Number(
      sqlite.prepare("INSERT INTO acceptance_criteria (contract_id, key, position, kind) VALUES (?, 'AC1', 1, 'finding_count')").run(contract).lastInsertRowid,
    );
    expectRefused(sqlite, "acceptance_criteria", id, `DELETE FROM acceptance_criteria WHERE id = ${id}`, "purge_only:");
  });
});

describe("the purge path", () => {
  const startPurge = () => Number(sqlite.prepare("INSERT INTO purges (actor, reason) VALUES ('admin', 'retention')").run().lastInsertRowid);

  it("deletes a whole session through every child table while a purge is open, then refuses deletes again", () => {
    const children = cascadeTables(sqlite);
    expect(children.length).toBeGreaterThan(25);
    for (const table of children) expect(count(sqlite, table), `fixture row in ${table}`).toBeGreaterThan(0);

    const purge = startPurge();
    expect(sqlite.prepare("DELETE FROM sessions WHERE id = 's1'").run().changes).toBe(1);
    for (const table of children) expect(count(sqlite, table), table).toBe(0);
    expect(count(sqlite, "events"), "events outlive their session").toBe(1);

    sqlite.prepare("UPDATE purges SET finished_at = ?, sessions_deleted = 1 WHERE id = ?").run(Date.now(), purge);
    populateSession(sqlite, "s2");
    expectRefused(sqlite, "sessions", "s2", "DELETE FROM sessions WHERE id = 's2'", "purge_only:");
    const task = Number(sqlite.prepare("SELECT id FROM tasks WHERE session_id = 's2'").pluck().get());
    expectRefused(sqlite, "tasks", task, `DELETE FROM tasks WHERE id = ${task}`, "purge_only:");
    const log = Number(sqlite.prepare("SELECT id FROM orchestration_logs").pluck().get());
    expectRefused(sqlite, "orchestration_logs", log, `DELETE FROM orchestration_logs WHERE id = ${log}`, "append_only:");
  });

  it("a purge is marked finished once, never changed after, and never deleted", () => {
    const purge = startPurge();
    expectRefused(sqlite, "purges", purge, `UPDATE purges SET reason = 'something else' WHERE id = ${purge}`, "append_only:");
    expectRefused(sqlite, "purges", purge, `UPDATE purges SET actor = 'someone' WHERE id = ${purge}`, "append_only:");
    expectRefused(sqlite, "purges", purge, `DELETE FROM purges WHERE id = ${purge}`, "append_only:");
    sqlite.prepare("UPDATE purges SET finished_at = 1000, sessions_deleted = 0 WHERE id = ?").run(purge);
    expectRefused(sqlite, "purges", purge, `UPDATE purges SET finished_at = NULL WHERE id = ${purge}`, "append_only:");
    expectRefused(sqlite, "purges", purge, `UPDATE purges SET finished_at = 2000 WHERE id = ${purge}`, "append_only:");
    expectRefused(sqlite, "purges", purge, `UPDATE purges SET sessions_deleted = 5 WHERE id = ${purge}`, "append_only:");
    expectRefused(sqlite, "purges", purge, `DELETE FROM purges WHERE id = ${purge}`, "append_only:");
  });

  it("an open purge lets history rows go but still never lets them change", () => {
    startPurge();
    const id = ids.task_transitions!;
    expectRefused(sqlite, "task_transitions", id, `UPDATE task_transitions SET actor = 'x' WHERE id = ${id}`, "append_only:");
    sqlite.prepare("DELETE FROM task_transitions WHERE id = ?").run(id);
    expect(row(sqlite, "task_transitions", id)).toBeUndefined();
  });

  it("a failed statement names its rule even inside a caller's transaction, and the transaction can go on", () => {
    const id = ids.events!;
    const attempt = sqlite.transaction(() => {
      expectRule(() => sqlite.prepare(`DELETE FROM events WHERE id = ${id}`).run(), "append_only:");
      sqlite.exec("INSERT INTO events (type, entity, actor) VALUES ('x', 'y', 'z')");
    });
    attempt();
    expect(count(sqlite, "events")).toBe(2);
  });
});
