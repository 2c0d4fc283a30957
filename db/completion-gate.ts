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
import { literal, trigger } from "./enforcement";

/** The id of the newest completion check of session `session` (NULL when it has none). */
const latestCheck = (session: string) => `(SELECT max(id) FROM completion_checks WHERE session_id = ${session})`;
const sessionOfGoal = (goal: string) => `(SELECT session_id FROM goals WHERE id = ${goal})`;
const changed = (columns: readonly string[]) => `(${columns.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")})`;

/** What marks the checks of `session` stale: a no-op unless it has a check newer than the mark. */
const markStale = (session: string) =>
  `UPDATE sessions SET checks_stale_through = ${latestCheck("sessions.id")} WHERE id = ${session} AND checks_stale_through < ${latestCheck("sessions.id")};`;

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
function staleness(): string[] {
  const rowTriggers = (table: string, columns: readonly string[]) => [
    trigger(`${table}_gate_stale_insert`, `AFTER INSERT ON ${table}`, null, markStale("NEW.session_id")),
    // A row's session never changes (`criteria.immutable`, `task.identity_immutable`).
    trigger(`${table}_gate_stale_update`, `AFTER UPDATE OF ${columns.join(", ")} ON ${table}`, changed(columns), markStale("NEW.session_id")),
    trigger(`${table}_gate_stale_delete`, `AFTER DELETE ON ${table}`, null, markStale("OLD.session_id")),
  ];
  return [
    ...rowTriggers("success_criteria", CRITERION_COLUMNS),
    ...rowTriggers("tasks", TASK_COLUMNS),
    // A contract makes its goal one the gate holds to a verdict; an evaluation is a new verdict.
    trigger("goal_contracts_gate_stale_insert", "AFTER INSERT ON goal_contracts", null, markStale(sessionOfGoal("NEW.goal_id"))),
    trigger(
      "goal_contracts_gate_stale_update",
      "AFTER UPDATE OF goal_id ON goal_contracts",
      changed(["goal_id"]),
      [markStale(sessionOfGoal("OLD.goal_id")), markStale(sessionOfGoal("NEW.goal_id"))].join("\n  "),
    ),
    trigger("goal_contracts_gate_stale_delete", "AFTER DELETE ON goal_contracts", null, markStale(sessionOfGoal("OLD.goal_id"))),
    trigger("goal_gate_evaluations_gate_stale_insert", "AFTER INSERT ON goal_gate_evaluations", null, markStale(sessionOfGoal("NEW.goal_id"))),
    trigger("goal_gate_evaluations_gate_stale_delete", "AFTER DELETE ON goal_gate_evaluations", null, markStale(sessionOfGoal("OLD.goal_id"))),
  ];
}

const cases = (rules: [string, string][]) =>
  `SELECT CASE\n${rules.map(([when, message]) => `    WHEN ${when} THEN RAISE(ABORT, ${message})`).join("\n")}\n  END;`;
const entersCompleted = "NEW.status = 'completed' AND OLD.status IS NOT 'completed'";
const acceptedCheck = (id: string) => `(SELECT accepted FROM completion_checks WHERE id = ${id})`;

const CHECK_REQUIRED = literal(
  "completion.check_required: a session completes only on a completion check recorded after the last change to its criteria, tasks and goal verdicts; run the completion check, then complete",
);
const REJECTED = literal("completion.rejected: the latest completion check rejected this enforce session; it completes only once a check accepts it");

function sessions(): string[] {
  const latest = latestCheck("NEW.id");
  return [
    trigger(
      "sessions_completion_insert",
      "BEFORE INSERT ON sessions",
      "NEW.status = 'completed' OR NEW.completion_check_id IS NOT NULL",
      cases([
        ["NEW.status = 'completed'", literal("completion.check_required: a session is created active and completes on a completion check recorded after it")],
        ["1", literal("completion.bookkeeping: completion_check_id is recorded by a completion, never written")],
      ]),
    ),
    trigger(
      "sessions_completion_gate",
      "BEFORE UPDATE OF status ON sessions",
      entersCompleted,
      cases([
        [`${latest} IS NULL OR ${latest} <= OLD.checks_stale_through`, CHECK_REQUIRED],
        [`NEW.enforcement IS NOT 'observe' AND NOT ${acceptedCheck(latest)}`, REJECTED],
      ]),
    ),
    // The completion uses its check up (another completion needs another check) and names it.
    trigger(
      "sessions_completion_record",
      "AFTER UPDATE OF status ON sessions",
      entersCompleted,
      `UPDATE sessions SET completion_check_id = ${latest}, checks_stale_through = ${latest} WHERE id = NEW.id;`,
    ),
    trigger(
      "sessions_completion_bookkeeping",
      "BEFORE UPDATE OF checks_stale_through, completion_check_id ON sessions",
      changed(["checks_stale_through", "completion_check_id"]),
      cases([
        [
          "NEW.checks_stale_through < OLD.checks_stale_through",
          literal("completion.bookkeeping: checks_stale_through only grows; a stale completion check never becomes fresh again"),
        ],
        [`NEW.checks_stale_through > coalesce(${latest}, 0)`, literal("completion.bookkeeping: checks_stale_through names a completion check of this session")],
        [
          `NEW.completion_check_id IS NOT OLD.completion_check_id AND NOT (NEW.status = 'completed' AND NEW.completion_check_id IS ${latest} AND OLD.checks_stale_through < NEW.completion_check_id AND NEW.checks_stale_through = NEW.completion_check_id AND (NEW.enforcement = 'observe' OR ${acceptedCheck("NEW.completion_check_id")}))`,
          literal("completion.bookkeeping: completion_check_id is recorded by a completion, never written"),
        ],
      ]),
    ),
  ];
}

/** Every statement of the gate's triggers, in order. */
export function completionGateStatements(): string[] {
  return [...staleness(), ...sessions()];
}

/** The trigger names `completionGateStatements()` creates. */
export function completionGateTriggerNames(): string[] {
  return completionGateStatements().flatMap((statement) => /^CREATE TRIGGER (\w+)$/m.exec(statement)?.[1] ?? []);
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
