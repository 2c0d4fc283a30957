import { asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { prepared } from "@/db/prepared";
import { criterionUpdates, successCriteria } from "@/db/schema";
import { effectiveStatus, hasDiscrepancy } from "@/server/domain/criteria";
import { loadSession } from "../session/load";
import { parseInput } from "../parse-input";
import type { CriterionRow } from "./record";
import { ListCriteriaInput } from "./schemas";

export type CriterionUpdateRow = typeof criterionUpdates.$inferSelect;

export interface CriterionView extends CriterionRow {
  effectiveStatus: CriterionRow["status"];
  discrepancy: boolean;
  history: CriterionUpdateRow[];
}

/** A session's criteria by priority (1 first, unset last), then in creation order, each with the status the gate trusts, any claimant/verifier discrepancy, and its change history. */
export async function listCriteria(db: DbOrTx, raw: ListCriteriaInput): Promise<CriterionView[]> {
  const input = parseInput(ListCriteriaInput, raw, "criteria.invalid_input");
  await loadSession(db, input.sessionId);
  const query = prepared(db, "criteria.list", () => {
    const sessionId = sql.placeholder("sessionId");
    return {
      rows: db
        .select()
        .from(successCriteria)
        .where(eq(successCriteria.sessionId, sessionId))
        .orderBy(sql`${successCriteria.priority} IS NULL`, asc(successCriteria.priority), asc(successCriteria.id))
        .prepare(),
      updates: db.select().from(criterionUpdates).where(eq(criterionUpdates.sessionId, sessionId)).orderBy(asc(criterionUpdates.id)).prepare(),
    };
  });
  const rows = await query.rows.all({ sessionId: input.sessionId });
  const updates = await query.updates.all({ sessionId: input.sessionId });
  return rows.map((row) => ({
    ...row,
    effectiveStatus: effectiveStatus(row),
    discrepancy: hasDiscrepancy(row),
    history: updates.filter((u) => u.criterionId === row.id),
  }));
}
