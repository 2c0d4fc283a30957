import { mapInOrder } from "../in-order";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { boundAll, driverValues, prepared } from "@/db/prepared";
import { successCriteria } from "@/db/schema";
import { validateCriteriaList } from "@/server/domain/criteria";
import { ValidationError } from "@/server/domain/errors";
import { type ServiceContext, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { type CriterionRow, recordCriterionChange } from "./record";
import { SaveCriteriaInput } from "./schemas";
import { parseInput } from "../parse-input";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

/**
 * Save a session's criteria list: all or nothing. A criterion already saved is updated in place
 * (000's UPSERT — saving the same list twice leaves one row each); its text never changes. Changing
 * whether an existing criterion is required takes a lead. Each real change is on the record.
 */
export async function saveCriteria(ctx: ServiceContext, unredacted: SaveCriteriaInput): Promise<CriterionRow[]> {
  authorize(ctx.actor, "criteria.save");
  const input = redactInput(parseInput(SaveCriteriaInput, unredacted, "criteria.invalid_input"));
  const list = validateCriteriaList(input.criteria);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const now = nowOf(ctx);
    return mapInOrder(list, async (item, i) => {
      const existing = await selectCriterion(ctx.db, input.sessionId, item.criterion);
      if (!existing) {
        const supersedesId = item.supersedes ? await findId(ctx.db, input.sessionId, item.supersedes, `criteria[${i}].supersedes`) : null;
        const row = await insertCriterion(ctx.db, {
          sessionId: input.sessionId,
          criterion: item.criterion,
          status: item.status ?? "pending",
          actual: item.actual ?? null,
          evidence: item.evidence ?? null,
          requiredForCompletion: item.requiredForCompletion ?? true,
          priority: item.priority ?? null,
          metadata: item.metadata ?? null,
          supersedesId,
          createdBy: ctx.actor.label,
          createdAt: now,
          updatedAt: now,
        });
        await recordCriterionChange(tx, ctx, row, {
          kind: "create",
          toStatus: row.status,
          actual: row.actual,
          evidence: row.evidence,
          required: row.requiredForCompletion,
        });
        return row;
      }
      const required = item.requiredForCompletion ?? existing.requiredForCompletion;
      if (required !== existing.requiredForCompletion) authorize(ctx.actor, "criteria.setRequired");
      const next = {
        status: item.status ?? existing.status,
        actual: item.actual === undefined ? existing.actual : item.actual,
        evidence: item.evidence === undefined ? existing.evidence : item.evidence,
      };
      const claimChanged = next.status !== existing.status || next.actual !== existing.actual || next.evidence !== existing.evidence;
      // Priority and metadata order and annotate the list; they are not part of the claim's record.
      const extra = {
        priority: item.priority === undefined ? existing.priority : item.priority,
        metadata: item.metadata === undefined ? existing.metadata : item.metadata,
      };
      const extraChanged = extra.priority !== existing.priority || JSON.stringify(extra.metadata) !== JSON.stringify(existing.metadata);
      if (!claimChanged && !extraChanged && required === existing.requiredForCompletion) return existing;
      const row = await updateCriterion(ctx.db, existing.id, { ...next, ...extra, requiredForCompletion: required, updatedAt: now });
      if (claimChanged)
        await recordCriterionChange(tx, ctx, row, {
          kind: "claim",
          fromStatus: existing.status,
          toStatus: row.status,
          actual: row.actual,
          evidence: row.evidence,
        });
      if (required !== existing.requiredForCompletion) await recordCriterionChange(tx, ctx, row, { kind: "required", required });
      return row;
    });
  });
}

async function findId(db: Db, sessionId: string, criterion: string, field: string): Promise<number> {
  const row = await selectCriterion(db, sessionId, criterion);
  if (!row) throw new ValidationError(field, "criteria.supersedes_unknown", `no criterion "${criterion}" in this session to supersede`);
  return row.id;
}

/*
 * The statements a save runs, prepared once per connection (db/prepared.ts): an import saves the
 * criteria of thousands of sessions, and Drizzle building each query again cost more than running it.
 */

type CriterionValues = typeof successCriteria.$inferInsert;

async function selectCriterion(db: Db, sessionId: string, criterion: string): Promise<CriterionRow | undefined> {
  const query = prepared(db, "criteria.select_by_text", () =>
    db
      .select()
      .from(successCriteria)
      .where(and(eq(successCriteria.sessionId, sql.placeholder("sessionId")), eq(successCriteria.criterion, sql.placeholder("criterion"))))
      .prepare(),
  );
  return await query.get({ sessionId, criterion });
}

const INSERT_KEYS = [
  "sessionId",
  "criterion",
  "status",
  "actual",
  "evidence",
  "requiredForCompletion",
  "priority",
  "metadata",
  "supersedesId",
  "createdBy",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof CriterionValues)[];

async function insertCriterion(db: Db, values: Pick<CriterionValues, (typeof INSERT_KEYS)[number]>): Promise<CriterionRow> {
  const query = prepared(db, "criteria.insert", () => db.insert(successCriteria).values(boundAll(INSERT_KEYS)).returning().prepare());
  return (await query.get(driverValues(successCriteria, values, INSERT_KEYS)))!;
}

const UPDATE_KEYS = [
  "status",
  "actual",
  "evidence",
  "priority",
  "metadata",
  "requiredForCompletion",
  "updatedAt",
] as const satisfies readonly (keyof CriterionValues)[];

async function updateCriterion(db: Db, id: number, set: Pick<CriterionValues, (typeof UPDATE_KEYS)[number]>): Promise<CriterionRow> {
  const query = prepared(db, "criteria.update", () =>
    db
      .update(successCriteria)
      .set(boundAll(UPDATE_KEYS))
      .where(eq(successCriteria.id, sql.placeholder("whereId")))
      .returning()
      .prepare(),
  );
  return (await query.get({ ...driverValues(successCriteria, set, UPDATE_KEYS), whereId: id }))!;
}
