import { queryGet } from "@/db/query";
import { and, eq } from "drizzle-orm";
import { successCriteria } from "@/db/schema";
import { type CriterionInput, validateCriteriaList } from "@/server/domain/criteria";
import { type CriterionRow, recordCriterionChange } from "../criteria/record";
import { type ServiceContext, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { authorize } from "@/server/domain/permissions";

/**
 * Criteria found only in a session's `pm` state snapshot — sessions from before BAZINGA had a
 * criteria table (000's migration) — saved as success criteria marked `migrated`, each with an
 * `import` history row. A criterion already in the table keeps its row; only its claim changes.
 */
export async function saveMigratedCriteria(ctx: ServiceContext, input: { sessionId: string; criteria: CriterionInput[] }): Promise<CriterionRow[]> {
  authorize(ctx.actor, "criteria.save");
  const list = validateCriteriaList(input.criteria);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const now = nowOf(ctx);
    const saved: CriterionRow[] = [];
    for (const item of list) {
      const values = {
        status: item.status ?? "pending",
        actual: item.actual ?? null,
        evidence: item.evidence ?? null,
        requiredForCompletion: item.requiredForCompletion ?? true,
      };
      const existing = await queryGet(
        tx
          .select()
          .from(successCriteria)
          .where(and(eq(successCriteria.sessionId, input.sessionId), eq(successCriteria.criterion, item.criterion))),
      );
      if (!existing) {
        const row = await queryGet(
          tx
            .insert(successCriteria)
            .values({
              sessionId: input.sessionId,
              criterion: item.criterion,
              ...values,
              migrated: true,
              createdBy: ctx.actor.label,
              createdAt: now,
              updatedAt: now,
            })
            .returning(),
        );
        await recordCriterionChange(tx, ctx, row, {
          kind: "import",
          toStatus: row.status,
          actual: row.actual,
          evidence: row.evidence,
          required: row.requiredForCompletion,
        });
        saved.push(row);
        continue;
      }
      const same =
        existing.status === values.status &&
        existing.actual === values.actual &&
        existing.evidence === values.evidence &&
        existing.requiredForCompletion === values.requiredForCompletion;
      if (same) {
        saved.push(existing);
        continue;
      }
      const row = (await queryGet(
        tx
          .update(successCriteria)
          .set({ ...values, updatedAt: now })
          .where(eq(successCriteria.id, existing.id))
          .returning(),
      ))!;
      await recordCriterionChange(tx, ctx, row, {
        kind: "import",
        fromStatus: existing.status,
        toStatus: row.status,
        actual: row.actual,
        evidence: row.evidence,
        required: row.requiredForCompletion,
      });
      saved.push(row);
    }
    return saved;
  });
}
