import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { queryAll } from "@/db/query";
import { criterionUpdates, events, goals, successCriteria, taskTransitions, tasks } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import type { Author, GateAuthors } from "@/server/domain/runtime-owner";

/**
 * Who wrote each text the completion gate quotes in a session: a criterion's text and a task's key
 * are written by the first change recorded for the row (its creation or import), a goal's text by
 * its `goal.created` event. A row whose first change is not recorded has an unknown writer.
 */
export async function gateAuthors(db: DbOrTx, sessionId: string): Promise<GateAuthors> {
  const criteriaRows = await queryAll(
    db
      .select({ id: successCriteria.id, text: successCriteria.criterion, principalId: criterionUpdates.principalId, label: criterionUpdates.actor })
      .from(successCriteria)
      .leftJoin(criterionUpdates, and(eq(criterionUpdates.criterionId, successCriteria.id), inArray(criterionUpdates.kind, ["create", "import"])))
      .where(eq(successCriteria.sessionId, sessionId))
      .orderBy(asc(successCriteria.id), asc(criterionUpdates.id)),
  );
  const taskRows = await queryAll(
    db
      .select({ id: tasks.id, key: tasks.key, principalId: taskTransitions.principalId, label: taskTransitions.actor })
      .from(tasks)
      .leftJoin(taskTransitions, eq(taskTransitions.taskId, tasks.id))
      .where(eq(tasks.sessionId, sessionId))
      .orderBy(asc(tasks.id), asc(taskTransitions.id)),
  );
  const goalRows = await queryAll(
    db
      .select({ id: goals.id, principalId: events.principalId, label: events.actor })
      .from(goals)
      .leftJoin(
        events,
        and(
          eq(events.sessionId, sessionId),
          eq(events.type, EVENT_TYPES.goalCreated),
          eq(events.entity, "goal"),
          eq(events.entityId, sql`cast(${goals.id} as text)`),
        ),
      )
      .where(eq(goals.sessionId, sessionId))
      .orderBy(asc(goals.id), asc(events.id)),
  );
  return {
    criteria: firstBy(criteriaRows, (r) => r.text),
    tasks: firstBy(taskRows, (r) => r.key),
    goals: firstBy(goalRows, (r) => r.id),
  };
}

/** The first row per key (rows come ordered by the row's id, then its history's). */
function firstBy<R extends { id: number; principalId: string | null; label: string | null }, K>(rows: readonly R[], key: (row: R) => K): Map<K, Author> {
  const out = new Map<K, Author>();
  for (const row of rows) if (!out.has(key(row))) out.set(key(row), { id: row.id, principalId: row.principalId, label: row.label });
  return out;
}
