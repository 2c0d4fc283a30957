import { eq } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { acceptanceCriteria, goalContracts, goalGateEvaluations } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ForbiddenTransitionError } from "@/server/domain/errors";
import { type AcceptanceCriterion, validateGoalContract } from "@/server/domain/goal-contract";
import { type ServiceContext, appendEvent, nowOf, requireRole, write } from "../context";
import { type StoredContract, loadContract, loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { PLAN_ROLES } from "./roles";
import { GoalContractLimits, SetGoalContractInput } from "./schemas";
import { redactInput } from "../redact-input";

/**
 * Set a goal's contract, or replace it while no attempt has been evaluated against it. Once one
 * has, the contract is the goalpost that attempt was judged by and is refused here
 * (`goal_contract.immutable`), with the database trigger as the backstop. Acceptance criteria are
 * never deleted (the database keeps them purge-only), so a replacement may change or add criteria
 * but must keep every criterion id it had (`goal_contract.criterion_removed`).
 */
export function setGoalContract(ctx: ServiceContext, unredacted: SetGoalContractInput): StoredContract {
  const input = redactInput(unredacted);
  requireRole(ctx, PLAN_ROLES, "goal_contract.set_role", "set goal contracts");
  const data = parseInput(SetGoalContractInput, input, "goal_contract.invalid_input");
  const contract = validateGoalContract(data.contract);
  parseInput(GoalContractLimits, contract, "goal_contract.too_large");
  return write(ctx, (tx) => {
    const goal = loadGoal(tx, data.goalId);
    const existing = loadContract(tx, goal.id);
    const now = nowOf(ctx);
    const fields = { goalText: contract.goalText, goalType: contract.goalType ?? null, maxGoalAttempts: contract.maxGoalAttempts, updatedAt: now };
    let contractId: number;
    if (existing) {
      assertReplaceable(tx, existing, contract.acceptanceCriteria);
      contractId = tx.update(goalContracts).set(fields).where(eq(goalContracts.id, existing.row.id)).returning().get()!.id;
    } else {
      contractId = tx.insert(goalContracts).values({ ...fields, goalId: goal.id, createdBy: ctx.actor.label, createdAt: now }).returning().get().id;
    }
    const byKey = new Map(existing?.criteria.map((row) => [row.key, row.id]));
    contract.acceptanceCriteria.forEach((criterion, position) => {
      const values = criterionValues(criterion, position);
      const id = byKey.get(criterion.id);
      if (id === undefined) tx.insert(acceptanceCriteria).values({ ...values, contractId }).run();
      else tx.update(acceptanceCriteria).set(values).where(eq(acceptanceCriteria.id, id)).run();
    });
    appendEvent(tx, ctx, {
      type: EVENT_TYPES.goalContractSet,
      sessionId: goal.sessionId,
      entity: "goal",
      entityId: goal.id,
      data: { criteria: contract.acceptanceCriteria.length, maxGoalAttempts: contract.maxGoalAttempts, replaced: existing !== null },
    });
    return loadContract(tx, goal.id)!;
  });
}

function assertReplaceable(tx: Tx, existing: StoredContract, next: readonly AcceptanceCriterion[]): void {
  const evaluated = tx.select({ id: goalGateEvaluations.id }).from(goalGateEvaluations).where(eq(goalGateEvaluations.contractId, existing.row.id)).limit(1).get();
  if (evaluated) {
    throw new ForbiddenTransitionError("goal_contract.immutable", `goal ${existing.row.goalId}'s contract was used to evaluate an attempt; it can no longer change`);
  }
  const kept = new Set(next.map((criterion) => criterion.id));
  const removed = existing.criteria.filter((row) => !kept.has(row.key)).map((row) => row.key);
  if (removed.length > 0) {
    throw new ForbiddenTransitionError("goal_contract.criterion_removed", `acceptance criteria are never deleted: keep ${removed.join(", ")} in the new contract (you may change them)`);
  }
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
