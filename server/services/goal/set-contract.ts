import { queryGet, queryRun } from "@/db/query";
import { eq } from "drizzle-orm";
import { acceptanceCriteria, goalContracts, goalGateEvaluations } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type AcceptanceCriterion, validateGoalContract } from "@/server/domain/goal-contract";
import { assertContractReplaceable } from "@/server/domain/goal-lifecycle";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { type StoredContract, loadContract, loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { GoalContractLimits, SetGoalContractInput } from "./schemas";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

/**
 * Set a goal's contract, or replace it while no attempt has been evaluated against it. Once one
 * has, the contract is the goalpost that attempt was judged by and is refused here
 * (`goal_contract.immutable`), with the database trigger as the backstop. Acceptance criteria are
 * never deleted (the database keeps them purge-only), so a replacement may change or add criteria
 * but must keep every criterion id it had (`goal_contract.criterion_removed`).
 */
export async function setGoalContract(ctx: ServiceContext, unredacted: SetGoalContractInput): Promise<StoredContract> {
  const input = redactInput(unredacted);
  authorize(ctx.actor, "goal.setContract");
  const data = parseInput(SetGoalContractInput, input, "goal_contract.invalid_input");
  const contract = validateGoalContract(data.contract);
  parseInput(GoalContractLimits, contract, "goal_contract.too_large");
  return write(ctx, async (tx) => {
    const goal = await loadGoal(tx, data.goalId);
    const existing = await loadContract(tx, goal.id);
    const now = nowOf(ctx);
    const fields = { goalText: contract.goalText, goalType: contract.goalType ?? null, maxGoalAttempts: contract.maxGoalAttempts, updatedAt: now };
    let contractId: number;
    if (existing) {
      const evaluated = await queryGet(
        tx.select({ id: goalGateEvaluations.id }).from(goalGateEvaluations).where(eq(goalGateEvaluations.contractId, existing.row.id)).limit(1),
      );
      assertContractReplaceable(
        { goalId: existing.row.goalId, evaluated: evaluated !== undefined, criterionKeys: existing.criteria.map((row) => row.key) },
        contract.acceptanceCriteria.map((criterion) => criterion.id),
      );
      contractId = (await queryGet(tx.update(goalContracts).set(fields).where(eq(goalContracts.id, existing.row.id)).returning()))!.id;
    } else {
      contractId = (
        await queryGet(
          tx
            .insert(goalContracts)
            .values({ ...fields, goalId: goal.id, createdBy: ctx.actor.label, createdAt: now })
            .returning(),
        )
      ).id;
    }
    const byKey = new Map(existing?.criteria.map((row) => [row.key, row.id]));
    for (const [position, criterion] of contract.acceptanceCriteria.entries()) {
      const values = criterionValues(criterion, position);
      const id = byKey.get(criterion.id);
      if (id === undefined) await queryRun(tx.insert(acceptanceCriteria).values({ ...values, contractId }));
      else await queryRun(tx.update(acceptanceCriteria).set(values).where(eq(acceptanceCriteria.id, id)));
    }
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.goalContractSet,
      sessionId: goal.sessionId,
      entity: "goal",
      entityId: goal.id,
      data: { criteria: contract.acceptanceCriteria.length, maxGoalAttempts: contract.maxGoalAttempts, replaced: existing !== null },
    });
    return (await loadContract(tx, goal.id))!;
  });
}

/** Every kind column is written, null where the kind has no such field, so a changed kind leaves nothing behind. */
function criterionValues(criterion: AcceptanceCriterion, position: number) {
  return {
    key: criterion.id,
    position,
    kind: criterion.kind,
    description: criterion.description ?? null,
    metric: criterion.metric ?? null,
    op: criterion.op ?? null,
    target: criterion.target ?? null,
    marker: criterion.marker ?? null,
    artifactPattern: criterion.artifactPattern ?? null,
    minCount: criterion.minCount ?? null,
  };
}
