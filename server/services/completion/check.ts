import { asc, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db/client";
import { boundAll, driverValues, prepared } from "@/db/prepared";
import { completionChecks, goalContracts, goalGateEvaluations, goals, successCriteria, tasks } from "@/db/schema";
import { type CompletionInput, type CompletionVerdict, evaluateCompletion } from "@/server/domain/completion-gate";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { authorize } from "@/server/domain/permissions";
import { parseInput } from "../parse-input";
import { CheckCompletionInput, ListCompletionChecksInput } from "./schemas";

export type CompletionCheckRow = typeof completionChecks.$inferSelect;

/**
 * Run the completion gate on the session's current rows and record the check (accepted or
 * rejected, with every reason). Returns the recorded row; it does not change the session.
 */
export async function checkCompletion(ctx: ServiceContext, raw: CheckCompletionInput): Promise<CompletionCheckRow> {
  authorize(ctx.actor, "completion.check");
  const input = parseInput(CheckCompletionInput, raw, "completion.invalid_input");
  return write(ctx, async (tx) => recordCompletionCheck(tx, ctx, input.sessionId, input.claimedVerdict ?? null));
}

/** The gate's verdict on a session's rows as they are now (no write): shared by the check and its preview. */
export async function evaluateSessionCompletion(tx: DbOrTx, sessionId: string): Promise<CompletionVerdict> {
  return evaluateCompletion(await gateInput(tx, sessionId));
}

/** What the completion gate reads of a session, as it is now. */
export async function gateInput(tx: DbOrTx, sessionId: string): Promise<CompletionInput> {
  const query = gateQueries(tx);
  const contractGoals = await query.contractGoals.all({ sessionId });
  const latest = new Map<number, "SUCCESS" | "PARTIAL" | "BLOCKED">();
  if (contractGoals.length > 0) {
    for (const e of await query.evaluations.all({ sessionId })) if (!latest.has(e.goalId)) latest.set(e.goalId, e.verdict);
  }
  return {
    criteria: await query.criteria.all({ sessionId }),
    tasks: await query.tasks.all({ sessionId }),
    contractGoals: contractGoals.map((g) => ({ id: g.id, goalText: g.goalText, verdict: latest.get(g.id) ?? null })),
  };
}

/**
 * The gate's reads, prepared once per connection (db/prepared.ts): every session view previews the gate.
 * Each in a stated order, as its reasons list rows in the order read: criteria and tasks by status
 * then id, the order SQLite's (session, status) indexes give them without a sort (and, as the gate
 * groups tasks by status, tasks by id within each), contract goals by id.
 */
function gateQueries(db: DbOrTx) {
  return prepared(db, "completion.gate", () => {
    const sessionId = sql.placeholder("sessionId");
    return {
      criteria: db
        .select({
          criterion: successCriteria.criterion,
          status: successCriteria.status,
          actual: successCriteria.actual,
          evidence: successCriteria.evidence,
          requiredForCompletion: successCriteria.requiredForCompletion,
          verifierStatus: successCriteria.verifierStatus,
          verifierActual: successCriteria.verifierActual,
          verifierEvidence: successCriteria.verifierEvidence,
        })
        .from(successCriteria)
        .where(eq(successCriteria.sessionId, sessionId))
        .orderBy(asc(successCriteria.status), asc(successCriteria.id))
        .prepare(),
      tasks: db
        .select({ key: tasks.key, title: tasks.title, status: tasks.status, verification: tasks.verification })
        .from(tasks)
        .where(eq(tasks.sessionId, sessionId))
        .orderBy(asc(tasks.status), asc(tasks.id))
        .prepare(),
      contractGoals: db
        .select({ id: goals.id, goalText: goals.goalText })
        .from(goals)
        .innerJoin(goalContracts, eq(goalContracts.goalId, goals.id))
        .where(eq(goals.sessionId, sessionId))
        .orderBy(asc(goals.id))
        .prepare(),
      // Every gate evaluation of the session's goals, newest first: the first seen per goal is its latest.
      evaluations: db
        .select({ goalId: goalGateEvaluations.goalId, verdict: goalGateEvaluations.verdict })
        .from(goalGateEvaluations)
        .innerJoin(goals, eq(goals.id, goalGateEvaluations.goalId))
        .where(eq(goals.sessionId, sessionId))
        .orderBy(desc(goalGateEvaluations.id))
        .prepare(),
    };
  });
}

const CHECK_KEYS = [
  "sessionId",
  "accepted",
  "reasons",
  "metCount",
  "totalCount",
  "source",
  "claimedVerdict",
  "details",
  "actor",
  "principalId",
  "role",
  "at",
] as const satisfies readonly (keyof typeof completionChecks.$inferInsert)[];

/** Evaluate and append the `completion_checks` row with its event, inside the caller's transaction. */
export async function recordCompletionCheck(
  tx: Tx,
  ctx: ServiceContext,
  sessionId: string,
  claimedVerdict: string | null,
  source: CompletionCheckRow["source"] = "gate",
): Promise<CompletionCheckRow> {
  await loadSession(tx, sessionId);
  const verdict = await evaluateSessionCompletion(tx, sessionId);
  const query = prepared(ctx.db, "completion.insert_check", () => ctx.db.insert(completionChecks).values(boundAll(CHECK_KEYS)).returning().prepare());
  const values: Pick<typeof completionChecks.$inferInsert, (typeof CHECK_KEYS)[number]> = {
    sessionId,
    accepted: verdict.accepted,
    reasons: verdict.reasons,
    metCount: verdict.metCount,
    totalCount: verdict.totalCount,
    source,
    claimedVerdict,
    details: { discrepancies: verdict.discrepancies, externallyBlocked: verdict.externallyBlocked },
    actor: ctx.actor.label,
    principalId: ctx.actor.principalId,
    role: ctx.actor.role,
    at: nowOf(ctx),
  };
  const row = (await query.get(driverValues(completionChecks, values, CHECK_KEYS)))!;
  await appendEvent(tx, ctx, {
    type: EVENT_TYPES.completionChecked,
    sessionId,
    entity: "completion_check",
    entityId: row.id,
    data: { accepted: row.accepted, met: row.metCount, total: row.totalCount },
  });
  return row;
}

/** The newest checks of a session, newest first. */
export async function listCompletionChecks(db: DbOrTx, raw: ListCompletionChecksInput): Promise<CompletionCheckRow[]> {
  const input = parseInput(ListCompletionChecksInput, raw, "completion.invalid_input");
  await loadSession(db, input.sessionId);
  const query = prepared(db, "completion.checks", () =>
    db
      .select()
      .from(completionChecks)
      .where(eq(completionChecks.sessionId, sql.placeholder("sessionId")))
      .orderBy(desc(completionChecks.id))
      .limit(sql.placeholder("limit"))
      .prepare(),
  );
  return await query.all({ sessionId: input.sessionId, limit: input.limit ?? 50 });
}
