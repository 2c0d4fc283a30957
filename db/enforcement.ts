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

export function trigger(name: string, timing: string, when: string | null, body: string): string {
  return `CREATE TRIGGER ${name}\n${timing}\n${when ? `WHEN ${when}\n` : ""}BEGIN\n  ${body}\nEND;`;
}

const raise = (message: string) => `SELECT RAISE(ABORT, ${message});`;
export const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

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
  const illegalEdges = TASK_STATUSES.flatMap((from) =>
    TASK_STATUSES.filter((to) => to !== from && !LEGAL_EDGES.some(([f, t]) => f === from && t === to)).map((to) => [from, to] as const),
  );
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
        [
          `NEW.verification IS NOT NULL AND ${ENFORCEMENT} IS NOT 'observe'`,
          literal("task.create_status: a task in an enforce session starts unverified (verification NULL)"),
        ],
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
        [
          "criteria_total = criteria_total + 1",
          "criteria_required = criteria_required + NEW.required_for_completion",
          `criteria_required_met = criteria_required_met + ${met("NEW")}`,
        ],
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
        [
          "criteria_total = criteria_total - 1",
          "criteria_required = criteria_required - OLD.required_for_completion",
          `criteria_required_met = criteria_required_met - ${met("OLD")}`,
        ],
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

/**
 * Values derived at write time so reads need no aggregation: `tasks.blocked_at` (when a blocked
 * task last entered `blocked`, the approvals inbox's order) and the `analytics_rollups` counters.
 * Each writer's transaction carries them, whoever writes (services, imports, the demo, raw SQL).
 * Every such trigger a migrated database has: those of migration 0004 (which creates the rollup
 * tables, `analyticsRollupMigrationSql`) with the purge trigger as migration 0005 replaced it, then
 * 0005's own (`sessionFigureRollupMigrationSql`).
 */
export function analyticsRollupStatements(): string[] {
  return [...blockedSince(), ...sessionIdentity(), ...analyticsRollups(rebuildAnalyticsRollupsSql()), ...sessionFigureRollups()];
}

function blockedSince(): string[] {
  // A block or a reported status starts the wait; a reset request (blocked → blocked) does not.
  const entered = "NEW.to_status = 'blocked' AND NEW.from_status IS NOT 'blocked'";
  return [
    trigger(
      "task_transitions_blocked_at",
      "AFTER INSERT ON task_transitions",
      entered,
      "UPDATE tasks SET blocked_at = NEW.at WHERE id = NEW.task_id AND blocked_at IS NOT NEW.at;",
    ),
    // A task made blocked without a transition (raw SQL) waits from its last update.
    trigger(
      "tasks_blocked_at_insert",
      "AFTER INSERT ON tasks",
      "NEW.status = 'blocked' AND NEW.blocked_at IS NULL",
      "UPDATE tasks SET blocked_at = NEW.updated_at WHERE id = NEW.id;",
    ),
    trigger(
      "tasks_blocked_at_update",
      "AFTER UPDATE OF status, blocked_at ON tasks",
      "NEW.status = 'blocked' AND NEW.blocked_at IS NULL",
      "UPDATE tasks SET blocked_at = NEW.updated_at WHERE id = NEW.id;",
    ),
  ];
}

function sessionIdentity(): string[] {
  return [
    trigger(
      "sessions_identity_immutable",
      "BEFORE UPDATE OF source, models ON sessions",
      "NEW.source IS NOT OLD.source OR NEW.models IS NOT OLD.models",
      raise(literal("session.identity_immutable: a session's source and models never change (analytics count by them)")),
    ),
  ];
}

const DAY_MS = 86_400_000;
/** UTC midnight of an epoch-ms value, as analytics' `bucketSql` computes a day. */
export const daySql = (expr: string) => `(CAST(${expr} AS INTEGER) / ${DAY_MS} * ${DAY_MS})`;
const sourceOf = (sessionId: string) => `(SELECT source FROM sessions WHERE id = ${sessionId})`;
/** The model a session recorded for an agent label's type (analytics' `sessionModelOf`). */
const modelOf = (sessionId: string, label: string) =>
  `(SELECT value FROM json_each((SELECT models FROM sessions WHERE id = ${sessionId})) WHERE key = rtrim(rtrim(${label}, '0123456789'), '_'))`;

const ROLLUP_COLUMNS = "figure, day, source, agent, model, k1, k2, k3, n, total";
const ROLLUP_KEY = "figure, day, source, ifnull(agent, char(0)), ifnull(model, char(0)), ifnull(k1, char(0)), ifnull(k2, -1), ifnull(k3, -1)";

/** Add to the counters of the rows a SELECT of (figure, day, source, agent, model, k1, k2, k3, n, total) names. */
export function addToRollups(select: string): string {
  return `INSERT INTO analytics_rollups (${ROLLUP_COLUMNS})\n  ${select}\n  ON CONFLICT (${ROLLUP_KEY}) DO UPDATE SET n = n + excluded.n, total = total + excluded.total;`;
}

/** The claim a verify/block move `j` judged: the latest move into `claimed` before it, which must be a claim. */
const judgedClaimOf = (j: string) =>
  `c.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = ${j}.task_id AND x.to_status = 'claimed' AND x.id < ${j}.id) AND c.move = 'claim'`;
/** The blocked spell an exit move `e` ends: the latest move into `blocked` from another state before it. */
const spellStartOf = (e: string) =>
  `b.to_status = 'blocked' AND b.id = (SELECT max(x.id) FROM task_transitions x WHERE x.task_id = ${e}.task_id AND x.to_status = 'blocked' AND x.from_status IS NOT 'blocked' AND x.id < ${e}.id)`;
const endsSpell = (e: string) => `(${e}.move = 'approve_reset' OR (${e}.move = 'report' AND ${e}.from_status = 'blocked' AND ${e}.to_status IS NOT 'blocked'))`;
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
  columns: (row: string) => string;
  from?: string;
  where: (row: string) => string;
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
const completedUnverified = (t: string) => `(${t}.status = 'completed' AND ${t}.verification IS 'none')`;
/** Whose work a task was: the claimant, else the assignee. */
const workerOf = (t: string) => `coalesce(${t}.claimed_by, ${t}.assignee)`;

/** Rows kept per day × source × agent × model: they answer any whole-day range and every filter. */
export const ROLLUP_SOURCES: Record<RollupFigure, RollupSource> = {
  // A claim row counts claims (n) and, in `total`, those of them a block judged.
  claim: {
    table: "task_transitions",
    columns: (t) =>
      `'claim', ${daySql(`${t}.at`)}, ${sourceOf(`${t}.session_id`)}, ${t}.actor, ${modelOf(`${t}.session_id`, `${t}.actor`)}, NULL, NULL, NULL, 1, 0`,
    where: (t) => `${t}.move = 'claim'`,
  },
  claimBlocked: {
    table: "task_transitions",
    columns: () => `'claim', ${daySql("c.at")}, ${sourceOf("c.session_id")}, c.actor, ${modelOf("c.session_id", "c.actor")}, NULL, NULL, NULL, 0, 1`,
    from: "task_transitions c",
    where: (j) => `${j}.move = 'block' AND ${judgedClaimOf(j)}`,
  },
  judged: {
    table: "task_transitions",
    columns: (j) =>
      `'judged', ${daySql("c.at")}, ${sourceOf("c.session_id")}, c.actor, ${modelOf("c.session_id", "c.actor")}, ${j}.move, (${j}.at - c.at) / 1000, NULL, 1, 0`,
    from: "task_transitions c",
    where: (j) => `${j}.move IN ('verify', 'block') AND ${judgedClaimOf(j)}`,
  },
  spell: {
    table: "task_transitions",
    columns: (e) =>
      `'spell', ${daySql("b.at")}, ${sourceOf("b.session_id")}, b.claimant, ${modelOf("b.session_id", "b.claimant")}, ${e}.move, (${e}.at - b.at) / 1000, NULL, 1, ${e}.at - b.at`,
    from: "task_transitions b",
    where: (e) => `${endsSpell(e)} AND ${spellStartOf(e)}`,
  },
  reset: {
    table: "task_transitions",
    columns: (e) =>
      `'reset', ${daySql("b.at")}, ${sourceOf("b.session_id")}, b.claimant, ${modelOf("b.session_id", "b.claimant")}, NULL, ${e}.task_id, NULL, 1, 0`,
    from: "task_transitions b",
    where: (e) => `${e}.move = 'approve_reset' AND ${spellStartOf(e)}`,
  },
  check: {
    table: "completion_checks",
    columns: (c) => `'check', ${daySql(`${c}.at`)}, ${sourceOf(`${c}.session_id`)}, ${c}.actor, NULL, NULL, ${c}.accepted, NULL, 1, 0`,
    where: () => "1",
  },
  // One row per implementation attempt (its number within the goal is unique); a result renames its outcome.
  attempt: {
    table: "attempts",
    columns: (a) =>
      `'attempt', ${daySql(`${a}.timestamp`)}, ${sourceOf("g.session_id")}, NULL, ${a}.model, ${outcomeOf(a)}, ${attemptsBefore(a)} + 1, ${a}.goal_id, 1, 0`,
    from: "goals g",
    where: (a) => `g.id = ${a}.goal_id AND ${a}.attempt_type = 'implementation'`,
  },
  breakdown: {
    table: "attempts",
    columns: (a) => `'breakdown', ${daySql(`${a}.timestamp`)}, ${sourceOf("g.session_id")}, NULL, ${a}.model, NULL, NULL, NULL, 1, 0`,
    from: "goals g",
    where: (a) => `g.id = ${a}.goal_id AND ${a}.attempt_type = 'breakdown'`,
  },
  tokens: {
    table: "token_usage",
    columns: (u) =>
      `'tokens', ${daySql(`${u}.timestamp`)}, ${sourceOf(`${u}.session_id`)}, ${u}.agent_id, ${u}.model, ${u}.agent_type, NULL, NULL, 1, ${u}.tokens_estimated`,
    where: () => "1",
  },
  // Sessions with a required criterion by (required, met) on the day they started: the rates, their
  // distribution and the series are sums over these few rows.
  criteria: {
    table: "sessions",
    columns: (s) => `'criteria', ${daySql(`${s}.started_at`)}, ${s}.source, NULL, NULL, NULL, ${s}.criteria_required, ${s}.criteria_required_met, 1, 0`,
    where: (s) => `${s}.criteria_required > 0`,
  },
  // Criteria found blocked or failed, by text, on the day their session started.
  criterionFound: {
    table: "success_criteria",
    columns: (c) => `'criterion_' || ${finding(c)}, ${daySql("s.started_at")}, s.source, NULL, NULL, ${c}.criterion, NULL, NULL, 1, 0`,
    from: "sessions s",
    where: (c) => `s.id = ${c}.session_id AND ${finding(c)} IN ('blocked', 'failed')`,
  },
  unverified: {
    table: "tasks",
    columns: (t) =>
      `'unverified', ${daySql(`coalesce(${t}.completed_at, ${t}.updated_at)`)}, ${sourceOf(`${t}.session_id`)}, ${workerOf(t)}, ${modelOf(`${t}.session_id`, workerOf(t))}, NULL, NULL, NULL, 1, 0`,
    where: completedUnverified,
  },
};

/** A trigger's statement adding the rows of a figure for a row image (NEW, or OLD). */
const addImageOf = (source: RollupSource, row: string) =>
  addToRollups(`SELECT ${source.columns(row)}${source.from ? ` FROM ${source.from}` : ""} WHERE ${source.where(row)}`);
/** A trigger's statement adding NEW's rows of a figure. */
const addRowOf = (source: RollupSource) => addImageOf(source, "NEW");

/** Name the columns of a compound of rollup rows by an empty first SELECT (a trigger may not use WITH). */
const rollupRows = (selects: string[]) =>
  `SELECT * FROM (\n    SELECT ${ROLLUP_COLUMNS.split(", ")
    .map((c) => `NULL AS ${c}`)
    .join(", ")} WHERE 0\n    ${selects.map((x) => `UNION ALL ${x}`).join("\n    ")}\n  ) WHERE 1`;

/** The statement adding every row of a figure's table, summed per key. */
const addEveryRowOf = (source: RollupSource) =>
  addToRollups(
    `SELECT figure, day, source, agent, model, k1, k2, k3, sum(n), sum(total) FROM (${rollupRows([
      `SELECT ${source.columns("h")} FROM ${source.table} h${source.from ? `, ${source.from}` : ""} WHERE ${source.where("h")}`,
    ])}) GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
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
  `(SELECT count(*) FROM task_transitions x WHERE x.task_id = ${task} AND x.move = 'approve_reset' AND x.id < ${id}
      AND x.id > (SELECT min(y.id) FROM task_transitions y WHERE y.task_id = ${task} AND y.to_status = 'blocked' AND y.from_status IS NOT 'blocked'))`;
/** Whether a goal's implementation attempt other than `except` succeeded. */
const goalSucceeded = (goal: string, except: string) =>
  `EXISTS (SELECT 1 FROM attempts p JOIN attempt_results r ON r.attempt_id = p.id WHERE p.goal_id = ${goal} AND p.attempt_type = 'implementation' AND r.status = 'success' AND p.id <> ${except})`;
const implementationAttempts = (goal: string) => `(SELECT count(*) FROM attempts p WHERE p.goal_id = ${goal} AND p.attempt_type = 'implementation')`;

function allTimeOnInsert(): { judged: string; spell: string; reset: string; attempt: string; result: string } {
  const s = ROLLUP_SOURCES;
  const judged = addToRollups(
    `SELECT 'judged_all', 0, ${sourceOf("c.session_id")}, NULL, NULL, NEW.move, (NEW.at - c.at) / 1000, NULL, 1, 0 FROM task_transitions c WHERE ${s.judged.where("NEW")}`,
  );
  const spell = addToRollups(
    `SELECT 'spell_all', 0, ${sourceOf("b.session_id")}, NULL, NULL, NEW.move, (NEW.at - b.at) / 1000, NULL, 1, NEW.at - b.at FROM task_transitions b WHERE ${s.spell.where("NEW")}`,
  );
  const prior = resetsBefore("NEW.task_id", "NEW.id");
  const reset = addToRollups(
    rollupRows([
      `SELECT 'reset_hist', 0, ${sourceOf("b.session_id")}, NULL, NULL, NULL, ${prior}, NULL, -1, 0 FROM task_transitions b WHERE ${s.reset.where("NEW")} AND ${prior} > 0`,
      `SELECT 'reset_hist', 0, ${sourceOf("b.session_id")}, NULL, NULL, NULL, ${prior} + 1, NULL, 1, 0 FROM task_transitions b WHERE ${s.reset.where("NEW")}`,
    ]),
  );
  const before = attemptsBefore("NEW");
  const succeeded = `CASE WHEN ${goalSucceeded("NEW.goal_id", "NEW.id")} THEN '1' ELSE '0' END`;
  const attempt = [
    addToRollups(
      `SELECT 'attempt_all', 0, ${sourceOf("g.session_id")}, NULL, NEW.model, 'running', ${before} + 1, NULL, 1, 0 FROM goals g WHERE ${s.attempt.where("NEW")}`,
    ),
    addToRollups(
      rollupRows([
        `SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, ${succeeded}, ${before}, NULL, -1, 0 FROM goals g WHERE ${s.attempt.where("NEW")} AND ${before} > 0`,
        `SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, ${succeeded}, ${before} + 1, NULL, 1, 0 FROM goals g WHERE ${s.attempt.where("NEW")}`,
      ]),
    ),
  ].join("\n  ");
  const attemptOf = "FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = NEW.attempt_id AND a.attempt_type = 'implementation'";
  const count = implementationAttempts("a.goal_id");
  const result = [
    `UPDATE analytics_rollups SET k1 = NEW.status
    WHERE rowid = (SELECT r.rowid FROM analytics_rollups r, attempts a, goals g
      WHERE a.id = NEW.attempt_id AND g.id = a.goal_id AND r.figure = 'attempt' AND r.day = ${daySql("a.timestamp")} AND r.source = ${sourceOf("g.session_id")}
        AND r.agent IS NULL AND r.model IS a.model AND r.k1 = 'running' AND r.k2 = ${attemptsBefore("a")} + 1 AND r.k3 = a.goal_id);`,
    addToRollups(
      rollupRows([
        `SELECT 'attempt_all', 0, ${sourceOf("g.session_id")}, NULL, a.model, 'running', ${attemptsBefore("a")} + 1, NULL, -1, 0 ${attemptOf}`,
        `SELECT 'attempt_all', 0, ${sourceOf("g.session_id")}, NULL, a.model, NEW.status, ${attemptsBefore("a")} + 1, NULL, 1, 0 ${attemptOf}`,
        `SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, '0', ${count}, NULL, -1, 0 ${attemptOf} AND NEW.status = 'success' AND NOT ${goalSucceeded("a.goal_id", "a.id")}`,
        `SELECT 'goal_hist', 0, ${sourceOf("g.session_id")}, NULL, NULL, '1', ${count}, NULL, 1, 0 ${attemptOf} AND NEW.status = 'success' AND NOT ${goalSucceeded("a.goal_id", "a.id")}`,
      ]),
    ),
  ].join("\n  ");
  return { judged, spell, reset, attempt, result };
}

/** The all-time rows counted from the detailed ones (after those are rebuilt). */
function rebuildAllTime(): string[] {
  return [
    addToRollups(`${allTime("judged_all", "k1", "k2", "sum(n)")} FROM analytics_rollups WHERE figure = 'judged' GROUP BY source, k1, k2`),
    addToRollups(`${allTime("spell_all", "k1", "k2", "sum(n)", "sum(total)")} FROM analytics_rollups WHERE figure = 'spell' GROUP BY source, k1, k2`),
    addToRollups(
      `${allTime("reset_hist", "NULL", "resets", "count(*)")} FROM (SELECT source, k2, sum(n) AS resets FROM analytics_rollups WHERE figure = 'reset' GROUP BY source, k2) WHERE 1 GROUP BY source, resets`,
    ),
    addToRollups(
      `${allTime("attempt_all", "k1", "k2", "sum(n)", "0", "model")} FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, model, k1, k2`,
    ),
    addToRollups(
      `${allTime("goal_hist", "succeeded", "attempts", "count(*)")} FROM (SELECT source, k3, sum(n) AS attempts, CASE WHEN max(k1 = 'success') THEN '1' ELSE '0' END AS succeeded FROM analytics_rollups WHERE figure = 'attempt' GROUP BY source, k3) WHERE 1 GROUP BY source, succeeded, attempts`,
    ),
  ];
}

/** The triggers of migration 0004; the purge trigger runs `rebuild`. */
function analyticsRollups(rebuild: string[]): string[] {
  const s = ROLLUP_SOURCES;
  const all = allTimeOnInsert();
  return [
    trigger("task_transitions_rollup_claim", "AFTER INSERT ON task_transitions", "NEW.move = 'claim'", addRowOf(s.claim)),
    trigger(
      "task_transitions_rollup_judged",
      "AFTER INSERT ON task_transitions",
      "NEW.move IN ('verify', 'block')",
      [addRowOf(s.judged), addRowOf(s.claimBlocked), all.judged].join("\n  "),
    ),
    trigger(
      "task_transitions_rollup_spell",
      "AFTER INSERT ON task_transitions",
      endsSpell("NEW"),
      [addRowOf(s.spell), all.spell, addRowOf(s.reset), all.reset].join("\n  "),
    ),
    trigger("completion_checks_rollup", "AFTER INSERT ON completion_checks", null, addRowOf(s.check)),
    trigger("attempts_rollup", "AFTER INSERT ON attempts", null, [addRowOf(s.attempt), all.attempt, addRowOf(s.breakdown)].join("\n  ")),
    trigger("attempt_results_rollup", "AFTER INSERT ON attempt_results", null, all.result),
    trigger("token_usage_rollup", "AFTER INSERT ON token_usage", null, addRowOf(s.tokens)),
    // A purge deletes history: count everything again from what is left.
    purgeRebuild(rebuild),
  ];
}

const purgeRebuild = (rebuild: string[]) =>
  trigger("purges_rollup_rebuild", "AFTER UPDATE OF finished_at ON purges", "NEW.finished_at IS NOT NULL", rebuild.join("\n  "));

/** The rollups of `figures` counted again from the history tables. */
function rebuildSql(figures: readonly RollupFigure[]): string[] {
  return [
    "DELETE FROM analytics_rollups;",
    "DELETE FROM analytics_reason_kinds;",
    "DELETE FROM analytics_rollup_state;",
    ...figures.map((figure) => addEveryRowOf(ROLLUP_SOURCES[figure])),
    ...rebuildAllTime(),
  ];
}

/**
 * Every rollup counted again from the history and current-state tables: after a purge (the
 * trigger), or after writes made with the rollup triggers dropped (a bulk load). The tables it
 * reads must be complete first, the per-session counters on `sessions` included.
 */
export function rebuildAnalyticsRollupsSql(): string[] {
  return rebuildSql([...FIGURES_0004, ...FIGURES_0005]);
}

/** A trigger's statement taking the rows of a figure for a row image (OLD) away from the counters. */
const subtractImageOf = (source: RollupSource, row: string) =>
  addToRollups(
    `SELECT figure, day, source, agent, model, k1, k2, k3, -n, -total FROM (${rollupRows([
      `SELECT ${source.columns(row)}${source.from ? ` FROM ${source.from}` : ""} WHERE ${source.where(row)}`,
    ])}) WHERE 1`,
  );
const changed = (columns: string[]) => `(${columns.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")})`;

/**
 * Migration 0005's triggers: the figures that read sessions, criteria and tasks as they are now
 * (criteria rates, the most blocked/failed criteria, unverified completions) kept like the others.
 * A row's old image is taken away and its new one added whenever a column the figure reads changes.
 */
function sessionFigureRollups(): string[] {
  const s = ROLLUP_SOURCES;
  // The criterion rows of session OLD/NEW (they count on the day their session started).
  const sessionCriteria = (session: "OLD" | "NEW", sign: "" | "-") =>
    addToRollups(
      `SELECT 'criterion_' || ${finding("c")}, ${daySql(`${session}.started_at`)}, ${session}.source, NULL, NULL, c.criterion, NULL, NULL, ${sign}count(*), 0
    FROM success_criteria c WHERE c.session_id = ${session}.id AND ${finding("c")} IN ('blocked', 'failed') GROUP BY ${finding("c")}, c.criterion`,
    );
  const sessionCriteriaColumns = ["started_at", "criteria_required", "criteria_required_met"];
  const criterionColumns = ["status", "verifier_status"];
  const taskColumns = ["status", "verification", "completed_at", "updated_at", "claimed_by", "assignee"];
  return [
    trigger("sessions_rollup_criteria_insert", "AFTER INSERT ON sessions", s.criteria.where("NEW"), addImageOf(s.criteria, "NEW")),
    trigger(
      "sessions_rollup_criteria_update",
      `AFTER UPDATE OF ${sessionCriteriaColumns.join(", ")} ON sessions`,
      `(${s.criteria.where("OLD")} OR ${s.criteria.where("NEW")}) AND ${changed(sessionCriteriaColumns)}`,
      [subtractImageOf(s.criteria, "OLD"), addImageOf(s.criteria, "NEW")].join("\n  "),
    ),
    trigger(
      "sessions_rollup_started_at",
      "AFTER UPDATE OF started_at ON sessions",
      changed(["started_at"]),
      [sessionCriteria("OLD", "-"), sessionCriteria("NEW", "")].join("\n  "),
    ),
    trigger(
      "success_criteria_rollup_found_insert",
      "AFTER INSERT ON success_criteria",
      `${finding("NEW")} IN ('blocked', 'failed')`,
      addImageOf(s.criterionFound, "NEW"),
    ),
    trigger(
      "success_criteria_rollup_found_update",
      `AFTER UPDATE OF ${criterionColumns.join(", ")} ON success_criteria`,
      `${finding("OLD")} IS NOT ${finding("NEW")} AND (${finding("OLD")} IN ('blocked', 'failed') OR ${finding("NEW")} IN ('blocked', 'failed'))`,
      [subtractImageOf(s.criterionFound, "OLD"), addImageOf(s.criterionFound, "NEW")].join("\n  "),
    ),
    trigger("tasks_rollup_unverified_insert", "AFTER INSERT ON tasks", completedUnverified("NEW"), addImageOf(s.unverified, "NEW")),
    trigger(
      "tasks_rollup_unverified_update",
      `AFTER UPDATE OF ${taskColumns.join(", ")} ON tasks`,
      `(${completedUnverified("OLD")} OR ${completedUnverified("NEW")}) AND ${changed(taskColumns)}`,
      [subtractImageOf(s.unverified, "OLD"), addImageOf(s.unverified, "NEW")].join("\n  "),
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
    ...blockedSince(),
    ...sessionIdentity(),
    ...analyticsRollups(rebuild),
    ...rebuild,
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
    ...sessionFigureRollups(),
    "DROP TRIGGER purges_rollup_rebuild;",
    purgeRebuild(rebuildAnalyticsRollupsSql()),
    ...FIGURES_0005.map((figure) => addEveryRowOf(ROLLUP_SOURCES[figure])),
  ].join("\n--> statement-breakpoint\n");
}
