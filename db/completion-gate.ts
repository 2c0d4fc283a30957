/**
 * The completion gate held by the database itself (migration 0008): a session becomes `completed`
 * only on a completion check recorded after the last change to anything the gate reads — its
 * criteria, its tasks, its goals' contracts and gate evaluations — and, in an `enforce` session,
 * only if that check accepted it. In an `observe` session the check may have rejected it (the
 * orchestrator's word is recorded beside Proofgate's), but it must exist and be fresh, so no
 * completion goes unchecked. A check admits one completion: completing uses it up.
 *
 * Freshness needs no counter of its own: completion check ids only grow (AUTOINCREMENT), so each
 * session keeps `checks_stale_through`, the id of its newest check at the moment something the
 * gate reads last changed. The newest check is fresh when its id is greater. The column only
 * grows, so no hand-written UPDATE can make a stale check fresh again; `completion_check_id`
 * records the check each completion rested on, for `proofgate check` to confirm afterwards.
 *
 * Every RAISE message starts with the rule id, like the domain's errors (`completion.rejected` is
 * the service's rule for the same refusal).
 */
import { changed } from "./enforcement";
import { TRUE, is, isNot, sql } from "./triggers/sql";
import { type Trigger, firstOf, renderSqlite, stmt, trigger } from "./triggers/trigger";

/** The id of the newest completion check of session `session` (NULL when it has none). */
const latestCheck = (session: string) => `(SELECT max(id) FROM completion_checks WHERE session_id = ${session})`;
const sessionOfGoal = (goal: string) => `(SELECT session_id FROM goals WHERE id = ${goal})`;

/** What marks the checks of `session` stale: a no-op unless it has a check newer than the mark. */
const markStale = (session: string) =>
  stmt(
    `UPDATE sessions SET checks_stale_through = ${latestCheck("sessions.id")} WHERE id = ${session} AND checks_stale_through < ${latestCheck("sessions.id")};`,
  );

/** The columns `evaluateSessionCompletion` (server/services/completion/check.ts) reads. */
const CRITERION_COLUMNS = [
  "criterion",
  "status",
  "actual",
  "evidence",
  "required_for_completion",
  "verifier_status",
  "verifier_actual",
  "verifier_evidence",
] as const;
const TASK_COLUMNS = ["key", "title", "status", "verification"] as const;

/** A write to what the gate reads makes every completion check recorded before it stale. */
function staleness(): Trigger[] {
  const rowTriggers = (table: string, columns: readonly string[]) => [
    trigger(`${table}_gate_stale_insert`, "AFTER", "INSERT", table, null, markStale("NEW.session_id")),
    // A row's session never changes (`criteria.immutable`, `task.identity_immutable`).
    trigger(`${table}_gate_stale_update`, "AFTER", { update: columns }, table, changed(columns), markStale("NEW.session_id")),
    trigger(`${table}_gate_stale_delete`, "AFTER", "DELETE", table, null, markStale("OLD.session_id")),
  ];
  return [
    ...rowTriggers("success_criteria", CRITERION_COLUMNS),
    ...rowTriggers("tasks", TASK_COLUMNS),
    // A contract makes its goal one the gate holds to a verdict; an evaluation is a new verdict.
    trigger("goal_contracts_gate_stale_insert", "AFTER", "INSERT", "goal_contracts", null, markStale(sessionOfGoal("NEW.goal_id"))),
    trigger("goal_contracts_gate_stale_update", "AFTER", { update: ["goal_id"] }, "goal_contracts", changed(["goal_id"]), [
      markStale(sessionOfGoal("OLD.goal_id")),
      markStale(sessionOfGoal("NEW.goal_id")),
    ]),
    trigger("goal_contracts_gate_stale_delete", "AFTER", "DELETE", "goal_contracts", null, markStale(sessionOfGoal("OLD.goal_id"))),
    trigger("goal_gate_evaluations_gate_stale_insert", "AFTER", "INSERT", "goal_gate_evaluations", null, markStale(sessionOfGoal("NEW.goal_id"))),
    trigger("goal_gate_evaluations_gate_stale_delete", "AFTER", "DELETE", "goal_gate_evaluations", null, markStale(sessionOfGoal("OLD.goal_id"))),
  ];
}

const entersCompleted = sql`NEW.status = 'completed' AND ${isNot("OLD.status", "'completed'")}`;
const acceptedCheck = (id: string) => `(SELECT accepted FROM completion_checks WHERE id = ${id})`;

const CHECK_REQUIRED =
  "completion.check_required: a session completes only on a completion check recorded after the last change to its criteria, tasks and goal verdicts; run the completion check, then complete";
const REJECTED = "completion.rejected: the latest completion check rejected this enforce session; it completes only once a check accepts it";

function sessions(): Trigger[] {
  const latest = latestCheck("NEW.id");
  return [
    trigger(
      "sessions_completion_insert",
      "BEFORE",
      "INSERT",
      "sessions",
      "NEW.status = 'completed' OR NEW.completion_check_id IS NOT NULL",
      firstOf([
        ["NEW.status = 'completed'", "completion.check_required: a session is created active and completes on a completion check recorded after it"],
        [TRUE, "completion.bookkeeping: completion_check_id is recorded by a completion, never written"],
      ]),
    ),
    trigger(
      "sessions_completion_gate",
      "BEFORE",
      { update: ["status"] },
      "sessions",
      entersCompleted,
      firstOf([
        [`${latest} IS NULL OR ${latest} <= OLD.checks_stale_through`, CHECK_REQUIRED],
        [sql`${isNot("NEW.enforcement", "'observe'")} AND NOT ${acceptedCheck(latest)}`, REJECTED],
      ]),
    ),
    // The completion uses its check up (another completion needs another check) and names it.
    trigger(
      "sessions_completion_record",
      "AFTER",
      { update: ["status"] },
      "sessions",
      entersCompleted,
      stmt(`UPDATE sessions SET completion_check_id = ${latest}, checks_stale_through = ${latest} WHERE id = NEW.id;`),
    ),
    trigger(
      "sessions_completion_bookkeeping",
      "BEFORE",
      { update: ["checks_stale_through", "completion_check_id"] },
      "sessions",
      changed(["checks_stale_through", "completion_check_id"]),
      firstOf([
        [
          "NEW.checks_stale_through < OLD.checks_stale_through",
          "completion.bookkeeping: checks_stale_through only grows; a stale completion check never becomes fresh again",
        ],
        [`NEW.checks_stale_through > coalesce(${latest}, 0)`, "completion.bookkeeping: checks_stale_through names a completion check of this session"],
        [
          sql`${isNot("NEW.completion_check_id", "OLD.completion_check_id")} AND NOT (NEW.status = 'completed' AND ${is("NEW.completion_check_id", latest)} AND OLD.checks_stale_through < NEW.completion_check_id AND NEW.checks_stale_through = NEW.completion_check_id AND (NEW.enforcement = 'observe' OR ${acceptedCheck("NEW.completion_check_id")}))`,
          "completion.bookkeeping: completion_check_id is recorded by a completion, never written",
        ],
      ]),
    ),
  ];
}

/** Every trigger of the gate, in order. */
export function completionGateTriggers(): Trigger[] {
  return [...staleness(), ...sessions()];
}

/** Every statement of the gate's triggers, in order. */
export function completionGateStatements(): string[] {
  return completionGateTriggers().map(renderSqlite);
}

/** The trigger names `completionGateStatements()` creates. */
export function completionGateTriggerNames(): string[] {
  return completionGateTriggers().map((t) => t.name);
}

/**
 * The hand-written tail of migration 0008 (after drizzle-kit's two columns). Checks recorded
 * before it carry no freshness, so each session's are marked stale: a session active at the
 * upgrade runs the check once more before it completes (the session service always does). Sessions
 * already completed stay completed, with no `completion_check_id`; `proofgate check` reports them
 * (`session.completion_checked`). `db/completion-gate.test.ts` fails if the file and this disagree.
 */
export function completionGateMigrationSql(): string {
  const backfill = "UPDATE sessions SET checks_stale_through = coalesce((SELECT max(id) FROM completion_checks c WHERE c.session_id = sessions.id), 0);";
  return ["-- From db/completion-gate.ts completionGateMigrationSql(). Do not edit by hand.", backfill, ...completionGateStatements()].join(
    "\n--> statement-breakpoint\n",
  );
}
