import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { rawAll, rawGet, sqlFor } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import type { FindingCollector } from "./findings";

const E = EVENT_TYPES;

/**
 * How a table's rows are matched to the `events` rows their writes appended (same transaction):
 * - `row`: each row (or the entity it belongs to, `entityId`) has an event of one of `types`;
 * - `count`: the rows of each parent entity are no more than its events of `types` (one per write);
 * - `session`: a session's rows are no more than its batch events of `types` say they wrote
 *   (`weight`: the rows one event stands for, e.g. a log batch's `count`, read from its JSON data).
 * Rows written as part of another row's action (acceptance criteria with their contract, tools and
 * attempt tools with their attempt, context package readers with the package) are covered by it.
 */
type Rule =
  | { kind: "row"; table: string; entity: string; entityId: string; types: readonly string[] | "any" }
  | { kind: "count"; table: string; entity: string; parent: string; from?: string; types: readonly string[] | { not: readonly string[] }; atLeastOne?: boolean }
  | { kind: "session"; table: string; types: readonly string[]; weight: (data: EventData) => SQL };

/** SQL reading a number of an event's JSON `data` (at a dotted path; NULL where it is absent): where the engines' spellings differ. */
interface EventData {
  number(path: string): SQL;
  arrayLength(path: string): SQL;
}

function eventData(db: DbOrTx): EventData {
  const pgPath = (path: string) => `'{${path.split(".").join(",")}}'`;
  return {
    number: (path) => sqlFor(db, { sqlite: sql.raw(`json_extract(data, '$.${path}')`), postgres: sql.raw(`(data::jsonb #>> ${pgPath(path)})::numeric`) }),
    arrayLength: (path) =>
      sqlFor(db, { sqlite: sql.raw(`json_array_length(data, '$.${path}')`), postgres: sql.raw(`jsonb_array_length(data::jsonb #> ${pgPath(path)})`) }),
  };
}

export const EVENT_RULES: readonly Rule[] = [
  { kind: "row", table: "sessions", entity: "session", entityId: "id", types: [E.sessionCreated] },
  { kind: "row", table: "tasks", entity: "task", entityId: "id", types: [E.taskCreated] },
  { kind: "count", table: "task_transitions", entity: "task", parent: "task_id", types: { not: [E.taskUpdated] } },
  { kind: "row", table: "success_criteria", entity: "criterion", entityId: "id", types: "any" },
  { kind: "count", table: "criterion_updates", entity: "criterion", parent: "criterion_id", types: [E.criteriaSaved, E.criterionUpdated, E.criterionVerified] },
  { kind: "row", table: "completion_checks", entity: "completion_check", entityId: "id", types: [E.completionChecked] },
  { kind: "row", table: "goals", entity: "goal", entityId: "id", types: [E.goalCreated] },
  { kind: "row", table: "goal_contracts", entity: "goal", entityId: "goal_id", types: [E.goalContractSet] },
  { kind: "count", table: "goal_gate_evaluations", entity: "goal", parent: "goal_id", types: [E.goalGateEvaluated] },
  { kind: "row", table: "attempts", entity: "attempt", entityId: "id", types: [E.attemptStarted] },
  { kind: "row", table: "attempt_results", entity: "attempt", entityId: "attempt_id", types: [E.attemptFinished] },
  { kind: "count", table: "trust_scores", entity: "attempt", parent: "attempt_id", types: [E.trustScored] },
  { kind: "count", table: "tool_calls", entity: "attempt", parent: "attempt_id", types: [E.toolCallsRecorded], atLeastOne: true },
  {
    kind: "count",
    table: "validation_runs",
    entity: "attempt",
    parent: "r.attempt_id",
    from: "validation_runs x JOIN attempt_results r ON r.id = x.attempt_result_id",
    types: [E.validationRunRecorded],
  },
  { kind: "row", table: "validation_steps", entity: "validation_step", entityId: "id", types: [E.validationStepAdded] },
  { kind: "row", table: "branches", entity: "branch", entityId: "id", types: [E.branchCreated] },
  { kind: "row", table: "worktrees", entity: "worktree", entityId: "id", types: [E.worktreeCreated] },
  { kind: "row", table: "merges", entity: "merge", entityId: "id", types: [E.mergeRecorded] },
  { kind: "session", table: "orchestration_logs", types: [E.logsAppended], weight: (data) => sql`coalesce(${data.number("count")}, 1)` },
  {
    kind: "session",
    table: "token_usage",
    types: [E.tokensLogged, E.logsAppended],
    weight: (data) => sql`CASE WHEN type = ${E.tokensLogged} THEN coalesce(${data.number("count")}, 1) ELSE coalesce(${data.number("tokens.count")}, 0) END`,
  },
  { kind: "session", table: "state_snapshots", types: [E.stateSaved], weight: (data) => sql`coalesce(${data.arrayLength("types")}, 1)` },
  { kind: "row", table: "skill_outputs", entity: "skill_output", entityId: "id", types: [E.skillOutputSaved] },
  { kind: "row", table: "decisions", entity: "decision", entityId: "id", types: [E.decisionSaved] },
  { kind: "row", table: "development_plans", entity: "development_plan", entityId: "id", types: [E.planSaved] },
  { kind: "row", table: "context_packages", entity: "context_package", entityId: "id", types: [E.contextPackageSaved] },
];

const list = (types: readonly string[]) => types.map((t) => `'${t.replaceAll("'", "''")}'`).join(", ");

function typeFilter(types: readonly string[] | { not: readonly string[] } | "any"): string {
  if (types === "any") return "1 = 1";
  return "not" in types ? `type NOT IN (${list(types.not)})` : `type IN (${list(types)})`;
}

/** Tables with no session_id of their own reach it through a parent. */
const SESSION_OF: Record<string, string> = {
  sessions: "x.id",
  validation_steps: "(SELECT g.session_id FROM goals g WHERE g.id = x.goal_id)",
  worktrees: "(SELECT b.session_id FROM branches b WHERE b.id = x.branch_id)",
  merges: "(SELECT b.session_id FROM branches b WHERE b.id = x.from_branch_id)",
  goal_contracts: "(SELECT g.session_id FROM goals g WHERE g.id = x.goal_id)",
  goal_gate_evaluations: "(SELECT g.session_id FROM goals g WHERE g.id = x.goal_id)",
  attempts: "(SELECT g.session_id FROM goals g WHERE g.id = x.goal_id)",
  attempt_results: "(SELECT g.session_id FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = x.attempt_id)",
  trust_scores: "(SELECT g.session_id FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = x.attempt_id)",
  tool_calls: "(SELECT g.session_id FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = x.attempt_id)",
  validation_runs: "(SELECT g.session_id FROM attempts a JOIN goals g ON g.id = a.goal_id WHERE a.id = r.attempt_id)",
};
const sessionOf = (table: string) => SESSION_OF[table] ?? "x.session_id";

/** Every domain row has the event its write appended (principle 3: one `events` row per mutation). */
export async function checkEvents(db: DbOrTx, found: FindingCollector): Promise<void> {
  const data = eventData(db);
  for (const rule of EVENT_RULES) {
    found.examined(rule.table, (await rawGet<{ n: number }>(db, sql.raw(`SELECT count(*) AS n FROM ${rule.table}`))).n);
    if (rule.kind === "row") {
      const missing = await rawAll<{ id: number | string; session_id: string | null }>(
        db,
        sql`SELECT x.id AS id, ${sql.raw(sessionOf(rule.table))} AS session_id FROM ${sql.raw(rule.table)} x
           WHERE CAST(x.${sql.raw(rule.entityId)} AS TEXT) NOT IN (SELECT entity_id FROM events WHERE entity = ${rule.entity} AND entity_id IS NOT NULL AND ${sql.raw(typeFilter(rule.types))})
           ORDER BY x.id`,
      );
      for (const row of missing) {
        const types = rule.types === "any" ? `any ${rule.entity}` : rule.types.join(" or ");
        found.add("event.missing", { table: rule.table, id: row.id, sessionId: row.session_id }, `${rule.table} row ${String(row.id)} has no ${types} event`);
      }
    } else if (rule.kind === "count") {
      const missing = await rawAll<{ parent: number; session_id: string | null; n: number; events: number }>(
        db,
        sql`WITH r AS (SELECT ${sql.raw(rule.parent)} AS parent, ${sql.raw(sessionOf(rule.table))} AS session_id, count(*) AS n FROM ${sql.raw(rule.from ?? `${rule.table} x`)} GROUP BY 1, 2),
                e AS (SELECT entity_id, count(*) AS n FROM events WHERE entity = ${rule.entity} AND ${sql.raw(typeFilter(rule.types))} GROUP BY entity_id)
           SELECT r.parent, r.session_id, r.n, coalesce(e.n, 0) AS events FROM r LEFT JOIN e ON e.entity_id = CAST(r.parent AS TEXT)
           WHERE ${sql.raw(rule.atLeastOne ? "coalesce(e.n, 0) = 0" : "r.n > coalesce(e.n, 0)")} ORDER BY r.parent`,
      );
      for (const row of missing) {
        found.add(
          "event.missing",
          { table: rule.table, id: row.parent, sessionId: row.session_id },
          `${rule.entity} ${row.parent} has ${row.n} ${rule.table} rows but ${row.events} matching events`,
        );
      }
    } else {
      const missing = await rawAll<{ session_id: string; n: number; events: number }>(
        db,
        sql`WITH r AS (SELECT session_id, count(*) AS n FROM ${sql.raw(rule.table)} GROUP BY session_id),
                e AS (SELECT session_id, sum(${rule.weight(data)}) AS n FROM events WHERE ${sql.raw(typeFilter(rule.types))} AND session_id IS NOT NULL GROUP BY session_id)
           SELECT r.session_id, r.n, coalesce(e.n, 0) AS events FROM r LEFT JOIN e ON e.session_id = r.session_id WHERE r.n > coalesce(e.n, 0) ORDER BY r.session_id`,
      );
      for (const row of missing) {
        found.add(
          "event.missing",
          { table: rule.table, sessionId: row.session_id },
          `session ${row.session_id} has ${row.n} ${rule.table} rows, its ${rule.types.join("/")} events account for ${row.events}`,
        );
      }
    }
  }
}
