import { queryGet } from "@/db/query";
import { and, eq } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { successCriteria } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { type ServiceContext, nowOf, write } from "../context";
import { type CriterionRow, recordCriterionChange } from "./record";
import { SetRequiredInput, UpdateCriterionInput, VerifyCriterionInput } from "./schemas";
import { parseInput } from "../parse-input";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

async function loadCriterion(tx: Tx, sessionId: string, criterion: string): Promise<CriterionRow> {
  const row = await queryGet(
    tx
      .select()
      .from(successCriteria)
      .where(and(eq(successCriteria.sessionId, sessionId), eq(successCriteria.criterion, criterion))),
  );
  if (!row) throw new NotFoundError("criterion", `${sessionId}: ${criterion}`);
  return row;
}

/** The claimant's side (PM): status, actual and evidence of one criterion. The text never changes. */
export async function updateCriterion(ctx: ServiceContext, unredacted: UpdateCriterionInput): Promise<CriterionRow> {
  authorize(ctx.actor, "criteria.update");
  const input = redactInput(parseInput(UpdateCriterionInput, unredacted, "criteria.invalid_input"));
  return write(ctx, async (tx) => {
    const existing = await loadCriterion(tx, input.sessionId, input.criterion);
    const next = {
      status: input.status ?? existing.status,
      actual: input.actual === undefined ? existing.actual : input.actual,
      evidence: input.evidence === undefined ? existing.evidence : input.evidence,
    };
    const row = (await queryGet(
      tx
        .update(successCriteria)
        .set({ ...next, updatedAt: nowOf(ctx) })
        .where(eq(successCriteria.id, existing.id))
        .returning(),
    ))!;
    await recordCriterionChange(tx, ctx, row, { kind: "claim", fromStatus: existing.status, toStatus: row.status, actual: row.actual, evidence: row.evidence });
    return row;
  });
}

/** A verifier's finding, recorded beside the claim; the completion gate trusts it over the claim. */
export async function verifyCriterion(ctx: ServiceContext, unredacted: VerifyCriterionInput): Promise<CriterionRow> {
  authorize(ctx.actor, "criteria.verify");
  const input = redactInput(parseInput(VerifyCriterionInput, unredacted, "criteria.invalid_input"));
  return write(ctx, async (tx) => {
    const existing = await loadCriterion(tx, input.sessionId, input.criterion);
    const now = nowOf(ctx);
    const row = (await queryGet(
      tx
        .update(successCriteria)
        .set({
          verifierStatus: input.status,
          verifierActual: input.actual ?? null,
          verifierEvidence: input.evidence ?? null,
          verifierBy: ctx.actor.label,
          verifierAt: now,
          updatedAt: now,
        })
        .where(eq(successCriteria.id, existing.id))
        .returning(),
    ))!;
    await recordCriterionChange(tx, ctx, row, {
      kind: "verify",
      fromStatus: existing.verifierStatus ?? existing.status,
      toStatus: input.status,
      actual: row.verifierActual,
      evidence: row.verifierEvidence,
    });
    return row;
  });
}

/** Only a lead decides whether a criterion is required for completion. */
export async function setCriterionRequired(ctx: ServiceContext, raw: SetRequiredInput): Promise<CriterionRow> {
  authorize(ctx.actor, "criteria.setRequired");
  const input = parseInput(SetRequiredInput, raw, "criteria.invalid_input");
  return write(ctx, async (tx) => {
    const existing = await loadCriterion(tx, input.sessionId, input.criterion);
    if (existing.requiredForCompletion === input.required) return existing;
    const row = (await queryGet(
      tx
        .update(successCriteria)
        .set({ requiredForCompletion: input.required, updatedAt: nowOf(ctx) })
        .where(eq(successCriteria.id, existing.id))
        .returning(),
    ))!;
    await recordCriterionChange(tx, ctx, row, { kind: "required", required: input.required });
    return row;
  });
}
