/**
 * The database's own enforcement: triggers that refuse what the domain refuses, so a hand-written
 * `UPDATE` cannot move a goalpost, skip verification, or rewrite history. The SQL is generated from
 * the domain's tables (legal task edges, append-only tables) and committed as a custom migration;
 * `enforcement.test.ts` fails if the committed migration and this generator disagree.
 *
 * Every RAISE message starts with the rule id, like the domain's errors.
 */
import { LEGAL_EDGES, TASK_STATUSES } from "@/server/domain/task-machine";

/** History: rows are only ever inserted. Deleted only while a recorded purge runs. */
export const APPEND_ONLY_TABLES = [
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
] as const;

/** Current-state tables of the ledger: updated by the rules below, deleted only by a purge. */
export const PURGE_ONLY_DELETE_TABLES = ["sessions", "tasks", "success_criteria", "goal_contracts", "acceptance_criteria"] as const;

const PURGE_ACTIVE = "EXISTS (SELECT 1 FROM purges WHERE finished_at IS NULL)";
const ENFORCEMENT = "(SELECT enforcement FROM sessions WHERE id = NEW.session_id)";

function trigger(name: string, timing: string, when: string | null, body: string): string {
  return `CREATE TRIGGER ${name}\n${timing}\n${when ? `WHEN ${when}\n` : ""}BEGIN\n  ${body}\nEND;`;
}

const raise = (message: string) => `SELECT RAISE(ABORT, ${message});`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

function appendOnly(): string[] {
  return APPEND_ONLY_TABLES.flatMap((table) => [
    trigger(`${table}_no_update`, `BEFORE UPDATE ON ${table}`, null, raise(literal(`append_only: ${table} rows are history and never change`))),
    trigger(
      `${table}_no_delete`,
      `BEFORE DELETE ON ${table}`,
      `NOT ${PURGE_ACTIVE}`,
      raise(literal(`append_only: ${table} rows are deleted only by a recorded purge`)),
    ),
  ]);
}

function purgeOnlyDelete(): string[] {
  return PURGE_ONLY_DELETE_TABLES.map((table) =>
    trigger(
      `${table}_no_delete`,
      `BEFORE DELETE ON ${table}`,
      `NOT ${PURGE_ACTIVE}`,
      raise(literal(`purge_only: ${table} rows are deleted only by a recorded purge`)),
    ),
  );
}

function purges(): string[] {
  return [
    trigger(
      "purges_finish_once",
      "BEFORE UPDATE ON purges",
      "OLD.finished_at IS NOT NULL OR NEW.id IS NOT OLD.id OR NEW.started_at IS NOT OLD.started_at OR NEW.actor IS NOT OLD.actor OR NEW.before IS NOT OLD.before OR NEW.reason IS NOT OLD.reason",
      raise(literal("append_only: a purge record can only be marked finished, once")),
    ),
    trigger("purges_no_delete", "BEFORE DELETE ON purges", null, raise(literal("append_only: purge records are never deleted"))),
  ];
}

function criteria(): string[] {
  return [
    trigger(
      "success_criteria_immutable",
      "BEFORE UPDATE OF criterion, session_id ON success_criteria",
      "NEW.criterion IS NOT OLD.criterion OR NEW.session_id IS NOT OLD.session_id",
      raise(literal("criteria.immutable: a criterion's text and session never change; save a new criterion that supersedes it")),
    ),
  ];
}

/**
 * One BEFORE trigger per event with an ordered CASE: SQLite does not promise an order between
 * triggers, and the first rule broken should be the one named.
 */
function tasks(): string[] {
  // `=` is NULL when either side is NULL, so an unknown label or principal never matches, and a
  // matching principal is refused even when the label was left out.
  const claimant = (col: "verified_by" | "blocked_by") => `NEW.${col} = NEW.claimed_by OR NEW.${col}_principal = NEW.claimed_by_principal`;
  const claimantMessage = (what: string) => literal(`task.claimant_cannot_${what}: the claimant of a task can never ${what} it`);
  const cases = (rules: [string, string][]) =>
    `SELECT CASE\n${rules.map(([when, message]) => `    WHEN ${when} THEN RAISE(ABORT, ${message})`).join("\n")}\n  END;`;
  const done = (row: string) => `${row}.status IN ('verified', 'completed')`;
  // An unverified completion stays one (no later UPDATE launders it), and in an observe session a
  // verified or completed task names its verifier or is flagged 'none' — never NULL, which neither
  // the dashboard nor the `tasks_unverified` rollup would count.
  const unflaggedUnverified =
    `${done("NEW")} AND NEW.verification IS NOT 'none' AND ((${done("OLD")} AND OLD.verification IS 'none')` +
    ` OR (${ENFORCEMENT} = 'observe' AND (NEW.verification IS NOT 'verified' OR NEW.verified_by IS NULL)))`;
  // Messages are string literals, one per edge: older SQLite readers (Debian's sqlite3 3.40 CLI)
  // refuse to open a schema whose RAISE() takes an expression.
  const illegalEdges = TASK_STATUSES.flatMap((from) => TASK_STATUSES.filter((to) => to !== from && !LEGAL_EDGES.some(([f, t]) => f === from && t === to)).map((to) => [from, to] as const));
  const edge = (from: string, to: string) => `OLD.status = '${from}' AND NEW.status = '${to}'`;
  return [
    trigger(
      "tasks_rules_insert",
      "BEFORE INSERT ON tasks",
      null,
      cases([
        ...TASK_STATUSES.filter((s) => s !== "pending").map((status): [string, string] => [
          `NEW.status = '${status}' AND ${ENFORCEMENT} IS NOT 'observe'`,
          literal(`task.create_status: a task in an enforce session starts pending, got ${status}`),
        ]),
        [`NEW.verification IS NOT NULL AND ${ENFORCEMENT} IS NOT 'observe'`, literal("task.create_status: a task in an enforce session starts unverified (verification NULL)")],
        ...(["verified", "blocked", "completed"] as const).map((status): [string, string] => [
          `NEW.status = '${status}' AND NEW.verification IS NOT 'none' AND ${ENFORCEMENT} = 'observe'`,
          literal(`task.unverified_status: a task reported ${status} without a verify move must be recorded with verification = 'none'`),
        ]),
        [claimant("verified_by"), claimantMessage("verify")],
        [claimant("blocked_by"), claimantMessage("block")],
      ]),
    ),
    trigger(
      "tasks_rules_update",
      "BEFORE UPDATE ON tasks",
      null,
      cases([
        ["NEW.session_id IS NOT OLD.session_id OR NEW.key IS NOT OLD.key", literal("task.identity_immutable: a task's session and key never change")],
        ...illegalEdges.map(([from, to]): [string, string] => [
          `${edge(from, to)} AND ${ENFORCEMENT} IS NOT 'observe'`,
          literal(`task.forbidden_transition: ${from} -> ${to} is not a move of the task machine`),
        ]),
        ...illegalEdges.map(([from, to]): [string, string] => [
          `${edge(from, to)} AND NEW.verification IS NOT 'none'`,
          literal(`task.unverified_status: ${from} -> ${to} skips the machine and must be recorded with verification = 'none'`),
        ]),
        [claimant("verified_by"), claimantMessage("verify")],
        [claimant("blocked_by"), claimantMessage("block")],
        [unflaggedUnverified, literal("task.unverified_status: a task that no verifier verified stays recorded with verification = 'none'")],
        [
          `${ENFORCEMENT} IS NOT 'observe' AND (NEW.verification IS 'none' OR (NEW.status IN ('verified', 'completed') AND (NEW.verification IS NOT 'verified' OR NEW.verified_by IS NULL)))`,
          literal("task.verification_required: in an enforce session a task is verified or completed only through a verify move by a verifier"),
        ],
      ]),
    ),
  ];
}

function contracts(): string[] {
  const evaluated = (contract: string) => `EXISTS (SELECT 1 FROM goal_gate_evaluations WHERE contract_id = ${contract})`;
  const message = literal("goal_contract.immutable: an attempt was evaluated against this contract; it can no longer change");
  return [
    trigger("goal_contracts_immutable", "BEFORE UPDATE ON goal_contracts", evaluated("OLD.id"), raise(message)),
    trigger("acceptance_criteria_immutable_insert", "BEFORE INSERT ON acceptance_criteria", evaluated("NEW.contract_id"), raise(message)),
    trigger("acceptance_criteria_immutable_update", "BEFORE UPDATE ON acceptance_criteria", evaluated("OLD.contract_id"), raise(message)),
    trigger(
      "acceptance_criteria_immutable_delete",
      "BEFORE DELETE ON acceptance_criteria",
      `${evaluated("OLD.contract_id")} AND NOT ${PURGE_ACTIVE}`,
      raise(message),
    ),
  ];
}

/** Per-session counters on `sessions`, kept exact by triggers so lists never count rows. */
function rollups(): string[] {
  const statusColumn = (status: string) => `tasks_${status}`;
  const unverified = (row: string) => `(${row}.status = 'completed' AND ${row}.verification IS 'none')`;
  const resetRequest = (row: string) => `(${row}.status = 'blocked' AND ${row}.reset_requested)`;
  const met = (row: string) => `(${row}.required_for_completion AND coalesce(${row}.verifier_status, ${row}.status) = 'met')`;
  const taskDelta = (sign: "+" | "-", row: string) => [
    ...TASK_STATUSES.map((s) => `${statusColumn(s)} = ${statusColumn(s)} ${sign} (${row}.status = '${s}')`),
    `tasks_unverified = tasks_unverified ${sign} ${unverified(row)}`,
    `reset_requests = reset_requests ${sign} ${resetRequest(row)}`,
  ];
  const taskChange = [
    ...TASK_STATUSES.map((s) => `${statusColumn(s)} = ${statusColumn(s)} - (OLD.status = '${s}') + (NEW.status = '${s}')`),
    `tasks_unverified = tasks_unverified - ${unverified("OLD")} + ${unverified("NEW")}`,
    `reset_requests = reset_requests - ${resetRequest("OLD")} + ${resetRequest("NEW")}`,
  ];
  const set = (assignments: string[], id: string) => `UPDATE sessions SET\n    ${assignments.join(",\n    ")}\n  WHERE id = ${id};`;
  return [
    trigger("tasks_rollup_insert", "AFTER INSERT ON tasks", null, set(["tasks_total = tasks_total + 1", ...taskDelta("+", "NEW")], "NEW.session_id")),
    trigger("tasks_rollup_update", "AFTER UPDATE OF status, verification, reset_requested ON tasks", null, set(taskChange, "NEW.session_id")),
    trigger("tasks_rollup_delete", "AFTER DELETE ON tasks", null, set(["tasks_total = tasks_total - 1", ...taskDelta("-", "OLD")], "OLD.session_id")),
    trigger(
      "success_criteria_rollup_insert",
      "AFTER INSERT ON success_criteria",
      null,
      set(
        ["criteria_total = criteria_total + 1", "criteria_required = criteria_required + NEW.required_for_completion", `criteria_required_met = criteria_required_met + ${met("NEW")}`],
        "NEW.session_id",
      ),
    ),
    trigger(
      "success_criteria_rollup_update",
      "AFTER UPDATE OF status, verifier_status, required_for_completion ON success_criteria",
      null,
      set(
        [
          "criteria_required = criteria_required - OLD.required_for_completion + NEW.required_for_completion",
          `criteria_required_met = criteria_required_met - ${met("OLD")} + ${met("NEW")}`,
        ],
        "NEW.session_id",
      ),
    ),
    trigger(
      "success_criteria_rollup_delete",
      "AFTER DELETE ON success_criteria",
      null,
      set(
        ["criteria_total = criteria_total - 1", "criteria_required = criteria_required - OLD.required_for_completion", `criteria_required_met = criteria_required_met - ${met("OLD")}`],
        "OLD.session_id",
      ),
    ),
  ];
}

/** Every trigger statement of the enforcement migration, in order. */
export function enforcementStatements(): string[] {
  return [...appendOnly(), ...purgeOnlyDelete(), ...purges(), ...criteria(), ...tasks(), ...contracts(), ...rollups()];
}

/** The migration file's text (statements separated the way drizzle-kit's migrator expects). */
export function enforcementMigrationSql(): string {
  const header = "-- Generated by `npm run db:enforcement` from db/enforcement.ts. Do not edit by hand.\n";
  return header + enforcementStatements().join("\n--> statement-breakpoint\n") + "\n";
}
