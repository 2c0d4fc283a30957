/**
 * The database's own enforcement: triggers that refuse what the domain refuses, so a hand-written
 * `UPDATE` cannot move a goalpost, skip verification, or rewrite history. The triggers are generated
 * from the domain's tables (legal task edges, append-only tables) as `Trigger` objects
 * (db/triggers/trigger.ts) and rendered for SQLite, committed as a custom migration
 * (`enforcement.test.ts` fails if the committed migration and this generator disagree), and for
 * PostgreSQL as PL/pgSQL (db/migrations-pg/0001_enforcement.sql, `pgEnforcementSql()` in db/triggers/pg-enforcement.ts).
 *
 * Every RAISE message starts with the rule id, like the domain's errors.
 */
import { LEGAL_EDGES, TASK_STATUSES } from "@/server/domain/task-machine";
import { type Sql, type SqlPart, FALSE, TRUE, alias, anyTrue, asInt, day, dialectSql, is, isNot, join, jsonValue, nullAs, rowid, sql } from "./triggers/sql";
import { type Trigger, firstOf, raise, renderSqlite, stmt, trigger } from "./triggers/trigger";

export { literal } from "./triggers/sql";

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

/** `NEW.c IS NOT OLD.c OR …` for each column. */
const anyChanged = (columns: readonly string[]) =>
  join(
    columns.map((c) => isNot(`NEW.${c}`, `OLD.${c}`)),
    " OR ",
  );
/** `(NEW.c IS NOT OLD.c OR …)`. */
export const changed = (columns: readonly string[]) => sql`(${anyChanged(columns)})`;

function appendOnly(): Trigger[] {
  return APPEND_ONLY_TABLES.flatMap((table) => [
    trigger(`${table}_no_update`, "BEFORE", { update: null }, table, null, raise(`append_only: ${table} rows are history and never change`)),
    trigger(`${table}_no_delete`, "BEFORE", "DELETE", table, `NOT ${PURGE_ACTIVE}`, raise(`append_only: ${table} rows are deleted only by a recorded purge`)),
  ]);
}

function purgeOnlyDelete(): Trigger[] {
  return PURGE_ONLY_DELETE_TABLES.map((table) =>
    trigger(`${table}_no_delete`, "BEFORE", "DELETE", table, `NOT ${PURGE_ACTIVE}`, raise(`purge_only: ${table} rows are deleted only by a recorded purge`)),
  );
}

function purges(): Trigger[] {
  return [
    trigger(
      "purges_finish_once",
      "BEFORE",
      { update: null },
      "purges",
      sql`OLD.finished_at IS NOT NULL OR ${anyChanged(["id", "started_at", "actor", "before", "reason"])}`,
      raise("append_only: a purge record can only be marked finished, once"),
    ),
    trigger("purges_no_delete", "BEFORE", "DELETE", "purges", null, raise("append_only: purge records are never deleted")),
  ];
}

function criteria(): Trigger[] {
  return [
    trigger(
      "success_criteria_immutable",
      "BEFORE",
      { update: ["criterion", "session_id"] },
      "success_criteria",
      anyChanged(["criterion", "session_id"]),
      raise("criteria.immutable: a criterion's text and session never change; save a new criterion that supersedes it"),
    ),
  ];
}

/**
 * One BEFORE trigger per event with an ordered CASE: SQLite does not promise an order between
 * triggers, and the first rule broken should be the one named.
 */
function tasks(): Trigger[] {
  // `=` is NULL when either side is NULL, so an unknown label or principal never matches, and a
  // matching principal is refused even when the label was left out.
  const claimant = (col: "verified_by" | "blocked_by") => `NEW.${col} = NEW.claimed_by OR NEW.${col}_principal = NEW.claimed_by_principal`;
  const claimantMessage = (what: string) => `task.claimant_cannot_${what}: the claimant of a task can never ${what} it`;
  const done = (row: string) => `${row}.status IN ('verified', 'completed')`;
  const enforced = isNot(ENFORCEMENT, "'observe'");
  // An unverified completion stays one (no later UPDATE launders it), and in an observe session a
  // verified or completed task names its verifier or is flagged 'none' — never NULL, which neither
  // the dashboard nor the `tasks_unverified` rollup would count.
  const unflaggedUnverified = sql`${done("NEW")} AND ${isNot("NEW.verification", "'none'")} AND ((${done("OLD")} AND ${is("OLD.verification", "'none'")}) OR (${ENFORCEMENT} = 'observe' AND (${isNot("NEW.verification", "'verified'")} OR NEW.verified_by IS NULL)))`;
  // Messages are string literals, one per edge: older SQLite readers (Debian's sqlite3 3.40 CLI)
  // refuse to open a schema whose RAISE() takes an expression.
  const illegalEdges = TASK_STATUSES.flatMap((from) =>
    TASK_STATUSES.filter((to) => to !== from && !LEGAL_EDGES.some(([f, t]) => f === from && t === to)).map((to) => [from, to] as const),
  );
  const edge = (from: string, to: string) => `OLD.status = '${from}' AND NEW.status = '${to}'`;
  return [
    trigger(
      "tasks_rules_insert",
      "BEFORE",
      "INSERT",
      "tasks",
      null,
      firstOf([
        ...TASK_STATUSES.filter((s) => s !== "pending").map(
          (status) =>
            [sql`NEW.status = '${status}' AND ${enforced}`, `task.create_status: a task in an enforce session starts pending, got ${status}`] as const,
        ),
        [sql`NEW.verification IS NOT NULL AND ${enforced}`, "task.create_status: a task in an enforce session starts unverified (verification NULL)"],
        ...(["verified", "blocked", "completed"] as const).map(
          (status) =>
            [
              sql`NEW.status = '${status}' AND ${isNot("NEW.verification", "'none'")} AND ${ENFORCEMENT} = 'observe'`,
              `task.unverified_status: a task reported ${status} without a verify move must be recorded with verification = 'none'`,
            ] as const,
        ),
        [claimant("verified_by"), claimantMessage("verify")],
        [claimant("blocked_by"), claimantMessage("block")],
      ]),
    ),
    trigger(
      "tasks_rules_update",
      "BEFORE",
      { update: null },
      "tasks",
      null,
      firstOf([
        [anyChanged(["session_id", "key"]), "task.identity_immutable: a task's session and key never change"],
        ...illegalEdges.map(
          ([from, to]) => [sql`${edge(from, to)} AND ${enforced}`, `task.forbidden_transition: ${from} -> ${to} is not a move of the task machine`] as const,
        ),
        ...illegalEdges.map(
          ([from, to]) =>
            [
              sql`${edge(from, to)} AND ${isNot("NEW.verification", "'none'")}`,
              `task.unverified_status: ${from} -> ${to} skips the machine and must be recorded with verification = 'none'`,
            ] as const,
        ),
        [claimant("verified_by"), claimantMessage("verify")],
        [claimant("blocked_by"), claimantMessage("block")],
        [unflaggedUnverified, "task.unverified_status: a task that no verifier verified stays recorded with verification = 'none'"],
        [
          sql`${enforced} AND (${is("NEW.verification", "'none'")} OR (NEW.status IN ('verified', 'completed') AND (${isNot("NEW.verification", "'verified'")} OR NEW.verified_by IS NULL)))`,
          "task.verification_required: in an enforce session a task is verified or completed only through a verify move by a verifier",
        ],
      ]),
    ),
  ];
}

function contracts(): Trigger[] {
  const evaluated = (contract: string) => `EXISTS (SELECT 1 FROM goal_gate_evaluations WHERE contract_id = ${contract})`;
  const message = raise("goal_contract.immutable: an attempt was evaluated against this contract; it can no longer change");
  return [
    trigger("goal_contracts_immutable", "BEFORE", { update: null }, "goal_contracts", evaluated("OLD.id"), message),
    trigger("acceptance_criteria_immutable_insert", "BEFORE", "INSERT", "acceptance_criteria", evaluated("NEW.contract_id"), message),
    trigger("acceptance_criteria_immutable_update", "BEFORE", { update: null }, "acceptance_criteria", evaluated("OLD.contract_id"), message),
    trigger(
      "acceptance_criteria_immutable_delete",
      "BEFORE",
      "DELETE",
      "acceptance_criteria",
      `${evaluated("OLD.contract_id")} AND NOT ${PURGE_ACTIVE}`,
      message,
    ),
  ];
}

/** Per-session counters on `sessions`, kept exact by triggers so lists never count rows. */
function rollups(): Trigger[] {
  const statusColumn = (status: string) => `tasks_${status}`;
  const unverified = (row: string) => asInt(sql`(${row}.status = 'completed' AND ${is(`${row}.verification`, "'none'")})`);
  const resetRequest = (row: string) => asInt(`(${row}.status = 'blocked' AND ${row}.reset_requested)`);
  const met = (row: string) => asInt(`(${row}.required_for_completion AND coalesce(${row}.verifier_status, ${row}.status) = 'met')`);
  const isStatus = (row: string, s: string) => asInt(`(${row}.status = '${s}')`);
  const required = (row: string) => asInt(`${row}.required_for_completion`);
  const taskDelta = (sign: "+" | "-", row: string) => [
    ...TASK_STATUSES.map((s) => sql`${statusColumn(s)} = ${statusColumn(s)} ${sign} ${isStatus(row, s)}`),
    sql`tasks_unverified = tasks_unverified ${sign} ${unverified(row)}`,
    sql`reset_requests = reset_requests ${sign} ${resetRequest(row)}`,
  ];
  const taskChange = [
    ...TASK_STATUSES.map((s) => sql`${statusColumn(s)} = ${statusColumn(s)} - ${isStatus("OLD", s)} + ${isStatus("NEW", s)}`),
    sql`tasks_unverified = tasks_unverified - ${unverified("OLD")} + ${unverified("NEW")}`,
    sql`reset_requests = reset_requests - ${resetRequest("OLD")} + ${resetRequest("NEW")}`,
  ];
  const set = (assignments: SqlPart[], id: string) => stmt(sql`UPDATE sessions SET\n    ${join(assignments, ",\n    ")}\n  WHERE id = ${id};`);
  return [
    trigger("tasks_rollup_insert", "AFTER", "INSERT", "tasks", null, set(["tasks_total = tasks_total + 1", ...taskDelta("+", "NEW")], "NEW.session_id")),
    trigger("tasks_rollup_update", "AFTER", { update: ["status", "verification", "reset_requested"] }, "tasks", null, set(taskChange, "NEW.session_id")),
    trigger("tasks_rollup_delete", "AFTER", "DELETE", "tasks", null, set(["tasks_total = tasks_total - 1", ...taskDelta("-", "OLD")], "OLD.session_id")),
    trigger(
      "success_criteria_rollup_insert",
      "AFTER",
      "INSERT",
      "success_criteria",
      null,
      set(
        [
          "criteria_total = criteria_total + 1",
          sql`criteria_required = criteria_required + ${required("NEW")}`,
          sql`criteria_required_met = criteria_required_met + ${met("NEW")}`,
        ],
        "NEW.session_id",
      ),
    ),
    trigger(
      "success_criteria_rollup_update",
      "AFTER",
      { update: ["status", "verifier_status", "required_for_completion"] },
      "success_criteria",
      null,
      set(
        [
          sql`criteria_required = criteria_required - ${required("OLD")} + ${required("NEW")}`,
          sql`criteria_required_met = criteria_required_met - ${met("OLD")} + ${met("NEW")}`,
        ],
        "NEW.session_id",
      ),
    ),
    trigger(
      "success_criteria_rollup_delete",
      "AFTER",
      "DELETE",
      "success_criteria",
      null,
      set(
        [
          "criteria_total = criteria_total - 1",
          sql`criteria_required = criteria_required - ${required("OLD")}`,
          sql`criteria_required_met = criteria_required_met - ${met("OLD")}`,
        ],
        "OLD.session_id",
      ),
    ),
  ];
}

/** Every trigger of the enforcement migration, in order. */
export function enforcementTriggers(): Trigger[] {
  return [...appendOnly(), ...purgeOnlyDelete(), ...purges(), ...criteria(), ...tasks(), ...contracts(), ...rollups()];
}

/** Every trigger statement of the enforcement migration, in order. */
export function enforcementStatements(): string[] {
  return enforcementTriggers().map(renderSqlite);
}

/** The migration file's text (statements separated the way drizzle-kit's migrator expects). */
export function enforcementMigrationSql(): string {
  const header = "-- Generated by `npm run db:enforcement` from db/enforcement.ts. Do not edit by hand.\n";
  return header + enforcementStatements().join("\n--> statement-breakpoint\n") + "\n";
}

/**
 * Values derived at write time so reads need no aggregation: `tasks.blocked_at` (when a blocked
 * task last entered `blocked`, the approvals inbox's order) and the `analytics_rollups` counters.
 * Each writer's transaction carries them, whoever writes (services, imports, the demo, raw SQL).
 * Every such trigger a migrated database has: those of migration 0004 (which creates the rollup
 * tables, `analyticsRollupMigrationSql`) with the purge trigger as migration 0005 replaced it, then
 * 0005's own (`sessionFigureRollupMigrationSql`).
 */
export function analyticsRollupTriggers(): Trigger[] {
  return [...blockedSince(), ...sessionIdentity(), ...analyticsRollups(rebuildSql([...FIGURES_0004, ...FIGURES_0005])), ...sessionFigureRollups()];
}

/** `analyticsRollupTriggers()` as SQLite statements. */
export function analyticsRollupStatements(): string[] {
  return analyticsRollupTriggers().map(renderSqlite);
}

function blockedSince(): Trigger[] {
  // A block or a reported status starts the wait; a reset request (blocked → blocked) does not.
  const entered = sql`NEW.to_status = 'blocked' AND ${isNot("NEW.from_status", "'blocked'")}`;
  return [
    trigger(
      "task_transitions_blocked_at",
      "AFTER",
      "INSERT",
      "task_transitions",
      entered,
      stmt(sql`UPDATE tasks SET blocked_at = NEW.at WHERE id = NEW.task_id AND ${isNot("blocked_at", "NEW.at")};`),
    ),
    // A task made blocked without a transition (raw SQL) waits from its last update.
    trigger(
      "tasks_blocked_at_insert",
      "AFTER",
      "INSERT",
      "tasks",
      "NEW.status = 'blocked' AND NEW.blocked_at IS NULL",
      stmt("UPDATE tasks SET blocked_at = NEW.updated_at WHERE id = NEW.id;"),
    ),
    trigger(
      "tasks_blocked_at_update",
      "AFTER",
      { update: ["status", "blocked_at"] },
      "tasks",
      "NEW.status = 'blocked' AND NEW.blocked_at IS NULL",
      stmt("UPDATE tasks SET blocked_at = NEW.updated_at WHERE id = NEW.id;"),
    ),
  ];
}

function sessionIdentity(): Trigger[] {
  return [
    trigger(
      "sessions_identity_immutable",
      "BEFORE",
      { update: ["source", "models"] },
      "sessions",
      anyChanged(["source", "models"]),
      raise("session.identity_immutable: a session's source and models never change (analytics count by them)"),
    ),
  ];
}

/** UTC midnight of an epoch-ms value, as analytics' `bucketSql` computes a day (SQLite text). */
export const daySql = (expr: string) => day(expr).render("sqlite");
const sourceOf = (sessionId: string) => `(SELECT source FROM sessions WHERE id = ${sessionId})`;
/** The model a session recorded for an agent label's type (analytics' `sessionModelOf`). */
const modelOf = (sessionId: string, label: string) =>
  jsonValue(`(SELECT models FROM sessions WHERE id = ${sessionId})`, `rtrim(rtrim(${label}, '0123456789'), '_')`);

/** The rollup columns with their PostgreSQL types (for the typed NULLs naming a compound's columns). */
const ROLLUP_COLUMN_TYPES = [
  ["figure", "text"],
  ["day", "bigint"],
  ["source", "text"],
  ["agent", "text"],
  ["model", "text"],
  ["k1", "text"],
  ["k2", "bigint"],
  ["k3", "bigint"],
  ["n", "bigint"],
  ["total", "bigint"],
] as const;
const ROLLUP_COLUMNS = ROLLUP_COLUMN_TYPES.map(([c]) => c).join(", ");
/**
 * The key of a rollup row. SQLite's unique index is on expressions (a NULL is a value there too);
 * PostgreSQL's is `UNIQUE NULLS NOT DISTINCT` on the plain columns.
 */
const ROLLUP_KEY = dialectSql(
  "figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)",
  "figure, day, source, agent, model, k1, k2, k3",
);

/** Add to the counters of the rows a SELECT of (figure, day, source, agent, model, k1, k2, k3, n, total) names. */
export function addToRollups(select: SqlPart): Sql {
  return sql`INSERT INTO analytics_rollups (${ROLLUP_COLUMNS})\n  ${select}\n  ON CONFLICT (${ROLLUP_KEY}) DO UPDATE SET n = ${dialectSql("n", "analytics_rollups.n")} + excluded.n, total = ${dialectSql("total", "analytics_rollups.total")} + excluded.total;`;
}

/** The claim a verify/block move `j` judged: the latest move into `claimed` before it, which must be a claim. */
const judgedClaimOf = (j: string) =>
  `c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = ${j}.task_id AND x.to_status = 'claimed' AND x.id < ${j}.id) AND c.move = 'claim'`;
/** The blocked spell an exit move `e` ends: the latest move into `blocked` from another state before it. */
const spellStartOf = (e: string) =>
  sql`b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = ${e}.task_id AND x.to_status = 'blocked' AND ${isNot("x.from_status", "'blocked'")} AND x.id < ${e}.id)`;
const endsSpell = (e: string) =>
  sql`(${e}.move = 'approve_reset' OR (${e}.move = 'report' AND ${e}.from_status = 'blocked' AND ${isNot(`${e}.to_status`, "'blocked'")}))`;
/** How many implementation attempts of its goal came before attempt `a` (its number is one more). */
const attemptsBefore = (a: string) =>
  `(SELECT count(*) FROM attempts p WHERE p.goal_id = ${a}.goal_id AND p.attempt_type = 'implementation' AND p.id < ${a}.id)`;

/**
 * One figure's rollup rows for a history row `row` of `table`: the columns (figure, day, source,
 * agent, model, k1, k2, k3, n, total), the other tables read, and the condition — the same
 * definitions as the analytics queries in server/services/analytics.
 */
interface RollupSource {
  table: string;
  columns: (row: string) => Sql;
  from?: string;
  where: (row: string) => Sql | string;
}

/** Outcome of attempt `a`: its result's status, `running` while it has none. */
const outcomeOf = (a: string) => `coalesce((SELECT r.status FROM attempt_results r WHERE r.attempt_id = ${a}.id), 'running')`;

/** The figures migration 0004 counted. */
const FIGURES_0004 = ["claim", "claimBlocked", "judged", "spell", "reset", "check", "attempt", "breakdown", "tokens"] as const;
/** The figures migration 0005 added: the ones that counted sessions' current state at read time. */
const FIGURES_0005 = ["criteria", "criterionFound", "unverified"] as const;
type RollupFigure = (typeof FIGURES_0004)[number] | (typeof FIGURES_0005)[number];

/** A criterion's finding: the verifier's when it gave one, else the claimant's (analytics' `topCriteria`). */
const finding = (c: string) => `coalesce(${c}.verifier_status, ${c}.status)`;
/** A task completed with no verification record (analytics' `unverifiedCompletionFigures`). */
const completedUnverified = (t: string) => sql`(${t}.status = 'completed' AND ${is(`${t}.verification`, "'none'")})`;
/** Whose work a task was: the claimant, else the assignee. */
const workerOf = (t: string) => `coalesce(${t}.claimed_by, ${t}.assignee)`;

/** Rows kept per day × source × agent × model: they answer any whole-day range and every filter. */
export const ROLLUP_SOURCES: Record<RollupFigure, RollupSource> = {
  // A claim row counts claims (n) and, in `total`, those of them a block judged.
  claim: {
    table: "task_transitions",
    columns: (t) =>
      sql`'claim', ${day(`${t}.at`)}, ${sourceOf(`${t}.session_id`)}, ${t}.actor, ${modelOf(`${t}.session_id`, `${t}.actor`)}, NULL, NULL, NULL, 1, 0`,
    where: (t) => `${t}.move = 'claim'`,
  },
  claimBlocked: {
    table: "task_transitions",
    columns: () => sql`'claim', ${day("c.at")}, ${sourceOf("c.session_id")}, c.actor, ${modelOf("c.session_id", "c.actor")}, NULL, NULL, NULL, 0, 1`,
    from: "task_transitions c",
    where: (j) => `${j}.move = 'block' AND ${judgedClaimOf(j)}`,
  },
  judged: {
    table: "task_transitions",
    columns: (j) =>
      sql`'judged', ${day("c.at")}, ${sourceOf("c.session_id")}, c.actor, ${modelOf("c.session_id", "c.actor")}, ${j}.move, (${j}.at - c.at) / 1000, NULL, 1, 0`,
    from: "task_transitions c",
    where: (j) => `${j}.move IN ('verify', 'block') AND ${judgedClaimOf(j)}`,
  },
  spell: {
    table: "task_transitions",
    columns: (e) =>
      sql`'spell', ${day("b.at")}, ${sourceOf("b.session_id")}, b.claimant, ${modelOf("b.session_id", "b.claimant")}, ${e}.move, (${e}.at - b.at) / 1000, NULL, 1, ${e}.at - b.at`,
    from: "task_transitions b",
    where: (e) => sql`${endsSpell(e)} AND ${spellStartOf(e)}`,
  },
  reset: {
    table: "task_transitions",
    columns: (e) =>
      sql`'reset', ${day("b.at")}, ${sourceOf("b.session_id")}, b.claimant, ${modelOf("b.session_id", "b.claimant")}, NULL, ${e}.task_id, NULL, 1, 0`,
    from: "task_transitions b",
    where: (e) => sql`${e}.move = 'approve_reset' AND ${spellStartOf(e)}`,
  },
  check: {
    table: "completion_checks",
    columns: (c) => sql`'check', ${day(`${c}.at`)}, ${sourceOf(`${c}.session_id`)}, ${c}.actor, NULL, NULL, ${asInt(`${c}.accepted`)}, NULL, 1, 0`,
    where: () => TRUE,
  },
  // One row per implementation attempt (its number within the goal is unique); a result renames its outcome.
  attempt: {
    table: "attempts",
    columns: (a) =>
      sql`'attempt', ${day(`${a}.timestamp`)}, ${sourceOf("g.session_id")}, NULL, ${a}.model, ${outcomeOf(a)}, ${attemptsBefore(a)} + 1, ${a}.goal_id, 1, 0`,
    from: "goals g",
    where: (a) => `g.id = ${a}.goal_id AND ${a}.attempt_type = 'implementation'`,
  },
  breakdown: {
    table: "attempts",
    columns: (a) => sql`'breakdown', ${day(`${a}.timestamp`)}, ${sourceOf("g.session_id")}, NULL, ${a}.model, NULL, NULL, NULL, 1, 0`,
    from: "goals g",
    where: (a) => `g.id = ${a}.goal_id AND ${a}.attempt_type = 'breakdown'`,
  },
  tokens: {
    table: "token_usage",
    columns: (u) =>
      sql`'tokens', ${day(`${u}.timestamp`)}, ${sourceOf(`${u}.session_id`)}, ${u}.agent_id, ${u}.model, ${u}.agent_type, NULL, NULL, 1, ${u}.tokens_estimated`,
    where: () => TRUE,
  },
  // Sessions with a required criterion by (required, met) on the day they started: the rates, their
  // distribution and the series are sums over these few rows.
  criteria: {
    table: "sessions",
    columns: (s) => sql`'criteria', ${day(`${s}.started_at`)}, ${s}.source, NULL, NULL, NULL, ${s}.criteria_required, ${s}.criteria_required_met, 1, 0`,
    where: (s) => `${s}.criteria_required > 0`,
  },
  // Criteria found blocked or failed, by text, on the day their session started.
  criterionFound: {
    table: "success_criteria",
    columns: (c) => sql`'criterion_' || ${finding(c)}, ${day("s.started_at")}, s.source, NULL, NULL, ${c}.criterion, NULL, NULL, 1, 0`,
    from: "sessions s",
    where: (c) => `s.id = ${c}.session_id AND ${finding(c)} IN ('blocked', 'failed')`,
  },
  unverified: {
    table: "tasks",
    columns: (t) =>
      sql`'unverified', ${day(`coalesce(${t}.completed_at, ${t}.updated_at)`)}, ${sourceOf(`${t}.session_id`)}, ${workerOf(t)}, ${modelOf(`${t}.session_id`, workerOf(t))}, NULL, NULL, NULL, 1, 0`,
    where: completedUnverified,
  },
};

/** A trigger's statement adding the rows of a figure for a row image (NEW, or OLD). */
const addImageOf = (source: RollupSource, row: string) =>
  addToRollups(sql`SELECT ${source.columns(row)}${source.from ? ` FROM ${source.from}` : ""} WHERE ${source.where(row)}`);
/** A trigger's statement adding NEW's rows of a figure. */
const addRowOf = (source: RollupSource) => addImageOf(source, "NEW");

/**
 * Name the columns of a compound of rollup rows by an empty first SELECT (a trigger may not use
 * WITH). PostgreSQL types its NULLs, so a column NULL in every branch keeps its type, and names the
 * subquery.
 */
const rollupRows = (selects: SqlPart[]) =>
  sql`SELECT * FROM (\n    SELECT ${join(
    ROLLUP_COLUMN_TYPES.map(([c, type]) => nullAs(c, type)),
    ", ",
  )} WHERE ${FALSE}\n    ${join(
    selects.map((x) => sql`UNION ALL ${x}`),
    "\n    ",
  )}\n  )${alias("rows")} WHERE ${TRUE}`;

/** The statement adding every row of a figure's table, summed per key. */
const addEveryRowOf = (source: RollupSource) =>
  addToRollups(
    sql`SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (${rollupRows([
      sql`SELECT ${source.columns("h")} FROM ${source.table} h${source.from ? `, ${source.from}` : ""} WHERE ${source.where("h")}`,
    ])})${alias("every_row")} GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
  );

/*
 * All-time rows (day 0, no agent, no model), for the overview without a range, agent or model,
 * which would otherwise read one row per judgment, spell or attempt:
 * judged_all (move, seconds), spell_all (exit move, seconds; total = ms), reset_hist (tasks by
 * how many resets they had: k2), attempt_all (outcome, attempt number, the attempt's model),
 * goal_hist (goals by attempts: k2, and whether one succeeded: k1 '1' / '0').
 */
const allTime = (figure: string, k1: string, k2: string, n: string, total = "0", model = "NULL") =>
  `SELECT '${figure}', 0, source, NULL, ${model}, ${k1}, ${k2}, NULL, ${n}, ${total}`;

/** How many approved resets task `task` had before transition `id` (each ends a spell, as `reset` counts them). */
const resetsBefore = (task: string, id: string) =>
  sql`(SELECT count(*) FROM task_transitions x WHERE x.task_id = ${task} AND x.move = 'approve_reset' AND x.id < ${id}
      AND x.id > (SELECT min(y.id) FROM task_transitions y WHERE y.task_id = ${task} AND y.to_status = 'blocked' AND ${isNot("y.from_status", "'blocked'")}))`;
/**
 * Whether a goal's implementation attempt other than `except` succeeded — in a result recorded
 * before result `before` when given. SQLite runs a row's AFTER trigger before the statement writes its
 * next row, so it never sees a later result; PostgreSQL runs them once every row is written, so the
 * condition is spelled out there.
 */
const goalSucceeded = (goal: string, except: string, before?: string) =>
  sql`EXISTS (SELECT 1 FROM attempts p JOIN attempt_results r ON r.attempt_id = p.id WHERE p.goal_id = ${goal} AND p.attempt_type = 'implementation' AND r.status = 'success' AND p.id <> ${except}${before ? dialectSql("", ` AND r.id < ${before}`) : ""})`;
const implementationAttempts = (goal: string) => `(SELECT count(*) FROM attempts p WHERE p.goal_id = ${goal} AND p.attempt_type = 'implementation')`;

function allTimeOnInsert(): { judged: Sql; spell: Sql; reset: Sql; attempt: Sql[]; result: Sql[] } {
  const s = ROLLUP_SOURCES;
  const judged = addToRollups(
    sql`SELECT 'judged_all', 0, ${sourceOf("c.session_id")}, NULL, NULL, NEW.move, (NEW.at - c.at) / 1000, NULL, 1, 0 FROM task_transitions c WHERE ${s.judged.where("NEW")}`,
  );
  const spell = addToRollups(
    sql`SELECT 'spell_all', 0, ${sourceOf("b.session_id")}, NULL, NULL, NEW.move, (NEW.at - b.at) / 1000, NULL, 1, NEW.at - b.at FROM task_transitions b WHERE ${s.spell.where("NEW")}`,
  );
  const prior = resetsBefore("NEW.task_id", "NEW.id");
  const reset = addToRollups(
    rollupRows([
      sql`SELECT 'reset_hist', 0, ${sourceOf("b.session_id")}, NULL, NULL, NULL, ${prior}, NULL, -1, 0 FROM task_transitions b WHERE ${s.reset.where("NEW")} AND ${prior} > 0`,
      sql`SELECT 'reset_hist', 0, ${sourceOf("b.session_id")}, NULL, NULL, NULL, ${prior} + 1, NULL, 1, 0 FROM task_transitions b WHERE ${s.reset.where("NEW")}`,
    ]),
  );
  const before = attemptsBefore("NEW");
  const succeeded = sql`CASE WHEN ${goalSucceeded("NEW.goal_id", "NEW.id")} THEN '1' ELSE '0' END`;
  const attempt = [
    addToRollups(
      sql`SELECT 'attempt_all', 0, ${sourceOf("g.session_id")}, NULL, NEW.model, 'running', ${before} + 1, NULL, 1, 0 FROM goals g WHERE ${s.attempt.where("NEW")}`,
    ),
    addToRollups(
      rollupRows([
        sql`SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, ${succeeded}, ${before}, NULL, -1, 0 FROM goals g WHERE ${s.attempt.where("NEW")} AND ${before} > 0`,
        sql`SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, ${succeeded}, ${before} + 1, NULL, 1, 0 FROM goals g WHERE ${s.attempt.where("NEW")}`,
      ]),
    ),
  ];
  const attemptOf = "FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = NEW.attempt_id AND a.attempt_type = 'implementation'";
  const count = implementationAttempts("a.goal_id");
  // analytics_rollups has no key column: the one row is found by its physical id.
  const result = [
    sql`UPDATE analytics_rollups SET k1 = NEW.status
    WHERE ${rowid()} = (SELECT ${rowid("r")} FROM analytics_rollups r, attempts a, goals g
      WHERE a.id = NEW.attempt_id AND g.id = a.goal_id AND r.figure = 'attempt' AND r.day = ${day("a.timestamp")} AND r.source = ${sourceOf("g.session_id")}
        AND r.agent IS NULL AND ${is("r.model", "a.model")} AND r.k1 = 'running' AND r.k2 = ${attemptsBefore("a")} + 1 AND r.k3 = a.goal_id);`,
    addToRollups(
      rollupRows([
        `SELECT 'attempt_all', 0, ${sourceOf("g.session_id")}, NULL, a.model, 'running', ${attemptsBefore("a")} + 1, NULL, -1, 0 ${attemptOf}`,
        `SELECT 'attempt_all', 0, ${sourceOf("g.session_id")}, NULL, a.model, NEW.status, ${attemptsBefore("a")} + 1, NULL, 1, 0 ${attemptOf}`,
        sql`SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, '0', ${count}, NULL, -1, 0 ${attemptOf} AND NEW.status = 'success' AND NOT ${goalSucceeded("a.goal_id", "a.id", "NEW.id")}`,
        sql`SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, '1', ${count}, NULL, 1, 0 ${attemptOf} AND NEW.status = 'success' AND NOT ${goalSucceeded("a.goal_id", "a.id", "NEW.id")}`,
      ]),
    ),
  ];
  return { judged, spell, reset, attempt, result };
}

/** The all-time rows counted from the detailed ones (after those are rebuilt). */
function rebuildAllTime(): Sql[] {
  return [
    addToRollups(`${allTime("judged_all", "k1", "k2", "sum(n)")} FROM analytics_rollups WHERE figure = 'judged' GROUP BY source, k1, k2`),
    addToRollups(`${allTime("spell_all", "k1", "k2", "sum(n)", "sum(total)")} FROM analytics_rollups WHERE figure = 'spell' GROUP BY source, k1, k2`),
    addToRollups(
      sql`${allTime("reset_hist", "NULL", "resets", "count(*)")} FROM (SELECT source, k2, sum(n) AS resets FROM analytics_rollups WHERE figure = 'reset' GROUP BY source, k2)${alias("resets")} WHERE ${TRUE} GROUP BY source, resets`,
    ),
    addToRollups(
      `${allTime("attempt_all", "k1", "k2", "sum(n)", "0", "model")} FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, model, k1, k2`,
    ),
    addToRollups(
      sql`${allTime("goal_hist", "succeeded", "attempts", "count(*)")} FROM (SELECT source, k3, sum(n) AS attempts, CASE WHEN ${anyTrue("k1 = 'success'")} THEN '1' ELSE '0' END AS succeeded FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, k3)${alias("goals")} WHERE ${TRUE} GROUP BY source, succeeded, attempts`,
    ),
  ];
}

/** The triggers of migration 0004; the purge trigger runs `rebuild`. */
function analyticsRollups(rebuild: Sql[]): Trigger[] {
  const s = ROLLUP_SOURCES;
  const all = allTimeOnInsert();
  return [
    trigger("task_transitions_rollup_claim", "AFTER", "INSERT", "task_transitions", "NEW.move = 'claim'", stmt(addRowOf(s.claim))),
    trigger(
      "task_transitions_rollup_judged",
      "AFTER",
      "INSERT",
      "task_transitions",
      "NEW.move IN ('verify', 'block')",
      [addRowOf(s.judged), addRowOf(s.claimBlocked), all.judged].map(stmt),
    ),
    trigger(
      "task_transitions_rollup_spell",
      "AFTER",
      "INSERT",
      "task_transitions",
      endsSpell("NEW"),
      [addRowOf(s.spell), all.spell, addRowOf(s.reset), all.reset].map(stmt),
    ),
    trigger("completion_checks_rollup", "AFTER", "INSERT", "completion_checks", null, stmt(addRowOf(s.check))),
    trigger("attempts_rollup", "AFTER", "INSERT", "attempts", null, [addRowOf(s.attempt), ...all.attempt, addRowOf(s.breakdown)].map(stmt)),
    trigger("attempt_results_rollup", "AFTER", "INSERT", "attempt_results", null, all.result.map(stmt)),
    trigger("token_usage_rollup", "AFTER", "INSERT", "token_usage", null, stmt(addRowOf(s.tokens))),
    // A purge deletes history: count everything again from what is left.
    purgeRebuild(rebuild),
  ];
}

const purgeRebuild = (rebuild: Sql[]) =>
  trigger("purges_rollup_rebuild", "AFTER", { update: ["finished_at"] }, "purges", "NEW.finished_at IS NOT NULL", rebuild.map(stmt));

/** The rollups of `figures` counted again from the history tables. */
function rebuildSql(figures: readonly RollupFigure[]): Sql[] {
  return [
    sql`DELETE FROM analytics_rollups;`,
    sql`DELETE FROM analytics_reason_kinds;`,
    sql`DELETE FROM analytics_rollup_state;`,
    ...figures.map((figure) => addEveryRowOf(ROLLUP_SOURCES[figure])),
    ...rebuildAllTime(),
  ];
}

/**
 * Every rollup counted again from the history and current-state tables: after a purge (the
 * trigger), or after writes made with the rollup triggers dropped (a bulk load). The tables it
 * reads must be complete first, the per-session counters on `sessions` included.
 */
export function rebuildAnalyticsRollupsSql(dialect: "sqlite" | "pg" = "sqlite"): string[] {
  return rebuildSql([...FIGURES_0004, ...FIGURES_0005]).map((statement) => statement.render(dialect));
}

/** A trigger's statement taking the rows of a figure for a row image (OLD) away from the counters. */
const subtractImageOf = (source: RollupSource, row: string) =>
  addToRollups(
    sql`SELECT figure, day, source, agent, model, k1, k2, k3, -n, -total FROM (${rollupRows([
      sql`SELECT ${source.columns(row)}${source.from ? ` FROM ${source.from}` : ""} WHERE ${source.where(row)}`,
    ])})${alias("old_rows")} WHERE ${TRUE}`,
  );

/**
 * Migration 0005's triggers: the figures that read sessions, criteria and tasks as they are now
 * (criteria rates, the most blocked/failed criteria, unverified completions) kept like the others.
 * A row's old image is taken away and its new one added whenever a column the figure reads changes.
 */
function sessionFigureRollups(): Trigger[] {
  const s = ROLLUP_SOURCES;
  // The criterion rows of session OLD/NEW (they count on the day their session started).
  const sessionCriteria = (session: "OLD" | "NEW", sign: "" | "-") =>
    addToRollups(
      sql`SELECT 'criterion_' || ${finding("c")}, ${day(`${session}.started_at`)}, ${session}.source, NULL, NULL, c.criterion, NULL, NULL, ${sign}count(*), 0
    FROM success_criteria c WHERE c.session_id = ${session}.id AND ${finding("c")} IN ('blocked', 'failed') GROUP BY ${finding("c")}, c.criterion`,
    );
  const sessionCriteriaColumns = ["started_at", "criteria_required", "criteria_required_met"];
  const criterionColumns = ["status", "verifier_status"];
  const taskColumns = ["status", "verification", "completed_at", "updated_at", "claimed_by", "assignee"];
  return [
    trigger("sessions_rollup_criteria_insert", "AFTER", "INSERT", "sessions", s.criteria.where("NEW"), stmt(addImageOf(s.criteria, "NEW"))),
    trigger(
      "sessions_rollup_criteria_update",
      "AFTER",
      { update: sessionCriteriaColumns },
      "sessions",
      sql`(${s.criteria.where("OLD")} OR ${s.criteria.where("NEW")}) AND ${changed(sessionCriteriaColumns)}`,
      [subtractImageOf(s.criteria, "OLD"), addImageOf(s.criteria, "NEW")].map(stmt),
    ),
    trigger(
      "sessions_rollup_started_at",
      "AFTER",
      { update: ["started_at"] },
      "sessions",
      changed(["started_at"]),
      [sessionCriteria("OLD", "-"), sessionCriteria("NEW", "")].map(stmt),
    ),
    trigger(
      "success_criteria_rollup_found_insert",
      "AFTER",
      "INSERT",
      "success_criteria",
      `${finding("NEW")} IN ('blocked', 'failed')`,
      stmt(addImageOf(s.criterionFound, "NEW")),
    ),
    trigger(
      "success_criteria_rollup_found_update",
      "AFTER",
      { update: criterionColumns },
      "success_criteria",
      sql`${isNot(finding("OLD"), finding("NEW"))} AND (${finding("OLD")} IN ('blocked', 'failed') OR ${finding("NEW")} IN ('blocked', 'failed'))`,
      [subtractImageOf(s.criterionFound, "OLD"), addImageOf(s.criterionFound, "NEW")].map(stmt),
    ),
    trigger("tasks_rollup_unverified_insert", "AFTER", "INSERT", "tasks", completedUnverified("NEW"), stmt(addImageOf(s.unverified, "NEW"))),
    trigger(
      "tasks_rollup_unverified_update",
      "AFTER",
      { update: taskColumns },
      "tasks",
      sql`(${completedUnverified("OLD")} OR ${completedUnverified("NEW")}) AND ${changed(taskColumns)}`,
      [subtractImageOf(s.unverified, "OLD"), addImageOf(s.unverified, "NEW")].map(stmt),
    ),
  ];
}

/**
 * The hand-written tail of migration 0004 (after drizzle-kit's tables): `blocked_at` of every
 * blocked task set as the trigger keeps it, the triggers, and the rollups counted from history —
 * of the figures 0004 had (`FIGURES_0004`), as it was committed.
 * `analytics/rollups.test.ts` fails if the committed file and this disagree.
 */
export function analyticsRollupMigrationSql(): string {
  const backfill = `UPDATE tasks SET blocked_at = coalesce(
    (SELECT tt.at FROM task_transitions tt WHERE tt.task_id = tasks.id AND tt.to_status = 'blocked' AND tt.from_status IS NOT 'blocked' ORDER BY tt.id DESC LIMIT 1),
    blocked_at, updated_at)
  WHERE status = 'blocked';`;
  const rebuild = rebuildSql(FIGURES_0004);
  return [
    "-- From db/enforcement.ts analyticsRollupMigrationSql(). Do not edit by hand.",
    backfill,
    ...[...blockedSince(), ...sessionIdentity(), ...analyticsRollups(rebuild)].map(renderSqlite),
    ...rebuild.map((statement) => statement.render("sqlite")),
  ].join("\n--> statement-breakpoint\n");
}

/**
 * The hand-written tail of migration 0005: the triggers of the figures it adds, the purge trigger
 * replaced by one that recounts them too, and their rows counted from the ledger as it is.
 * `analytics/rollups.test.ts` fails if the committed file and this disagree.
 */
export function sessionFigureRollupMigrationSql(): string {
  return [
    "-- From db/enforcement.ts sessionFigureRollupMigrationSql(). Do not edit by hand.",
    ...sessionFigureRollups().map(renderSqlite),
    "DROP TRIGGER purges_rollup_rebuild;",
    renderSqlite(purgeRebuild(rebuildSql([...FIGURES_0004, ...FIGURES_0005]))),
    ...FIGURES_0005.map((figure) => addEveryRowOf(ROLLUP_SOURCES[figure]).render("sqlite")),
  ].join("\n--> statement-breakpoint\n");
}
