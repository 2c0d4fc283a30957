import type { Db, Tx } from "@/db/client";
import type { SQL } from "drizzle-orm";
import { boundAll, driverValues, prepared } from "@/db/prepared";
import { criterionUpdates, type successCriteria } from "@/db/schema";
import type { CriterionStatus } from "@/server/domain/criteria";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type ServiceContext, appendEvent, nowOf } from "../context";

export type CriterionRow = typeof successCriteria.$inferSelect;

export interface CriterionChange {
  kind: "create" | "claim" | "verify" | "required" | "import";
  fromStatus?: CriterionStatus | null;
  toStatus?: CriterionStatus | null;
  actual?: string | null;
  evidence?: string | null;
  required?: boolean | null;
}

const EVENT_FOR: Record<CriterionChange["kind"], string> = {
  create: EVENT_TYPES.criteriaSaved,
  claim: EVENT_TYPES.criterionUpdated,
  verify: EVENT_TYPES.criterionVerified,
  required: EVENT_TYPES.criterionUpdated,
  import: EVENT_TYPES.criterionUpdated,
};

/** Append a criterion's history row and its event: "who moved this to met, with what evidence". */
export async function recordCriterionChange(tx: Tx, ctx: ServiceContext, row: CriterionRow, change: CriterionChange): Promise<void> {
  await insertUpdate(ctx.db, {
    criterionId: row.id,
    sessionId: row.sessionId,
    ...change,
    actor: ctx.actor.label,
    principalId: ctx.actor.principalId,
    role: ctx.actor.role,
    at: nowOf(ctx),
  });
  await appendEvent(tx, ctx, {
    type: EVENT_FOR[change.kind],
    sessionId: row.sessionId,
    entity: "criterion",
    entityId: row.id,
    data: { criterion: row.criterion, kind: change.kind, from: change.fromStatus ?? null, to: change.toStatus ?? null },
  });
}

/**
 * The history row, prepared once per connection and set of columns given (db/prepared.ts): an
 * import records tens of thousands of criterion changes. A column not given takes its default.
 */
async function insertUpdate(db: Db, values: typeof criterionUpdates.$inferInsert): Promise<void> {
  const keys = Object.keys(values)
    .filter((key) => values[key as keyof typeof values] !== undefined)
    .sort();
  const query = prepared(db, `criteria.insert_update:${keys.join(",")}`, () =>
    db
      .insert(criterionUpdates)
      .values(boundAll(keys) as Record<keyof typeof values, SQL>)
      .prepare(),
  );
  await query.run(driverValues(criterionUpdates, values, keys));
}
