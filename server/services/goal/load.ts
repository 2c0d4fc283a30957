import { queryAll, queryGet } from "@/db/query";
import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { acceptanceCriteria, branches, goalContracts, goals } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import type { AcceptanceCriterion, GoalContract } from "@/server/domain/goal-contract";

export type GoalRow = typeof goals.$inferSelect;
export type BranchRow = typeof branches.$inferSelect;
export type ContractRow = typeof goalContracts.$inferSelect;
export type CriterionRow = typeof acceptanceCriteria.$inferSelect;

export interface StoredContract {
  row: ContractRow;
  criteria: CriterionRow[];
  /** The same contract in the domain's shape, for the goal gate. */
  contract: GoalContract;
}

export async function loadGoal(db: DbOrTx, id: number): Promise<GoalRow> {
  const goal = await queryGet(db.select().from(goals).where(eq(goals.id, id)));
  if (!goal) throw new NotFoundError("goal", id);
  return goal;
}

export async function loadBranch(db: DbOrTx, id: number): Promise<BranchRow> {
  const branch = await queryGet(db.select().from(branches).where(eq(branches.id, id)));
  if (!branch) throw new NotFoundError("branch", id);
  return branch;
}

/** A goal's contract with its criteria in contract order, or null when the goal has none. */
export async function loadContract(db: DbOrTx, goalId: number): Promise<StoredContract | null> {
  const row = await queryGet(db.select().from(goalContracts).where(eq(goalContracts.goalId, goalId)));
  if (!row) return null;
  const criteria = await queryAll(
    db.select().from(acceptanceCriteria).where(eq(acceptanceCriteria.contractId, row.id)).orderBy(asc(acceptanceCriteria.position), asc(acceptanceCriteria.id)),
  );
  return { row, criteria, contract: toDomainContract(row, criteria) };
}

/** Rows back into the domain's contract: a criterion carries only the fields its kind uses. */
export function toDomainContract(row: ContractRow, criteria: readonly CriterionRow[]): GoalContract {
  return {
    version: 1,
    goalText: row.goalText,
    goalType: row.goalType,
    maxGoalAttempts: row.maxGoalAttempts,
    acceptanceCriteria: criteria.map((c) => {
      const criterion: AcceptanceCriterion = { id: c.key, kind: c.kind };
      if (c.description !== null) criterion.description = c.description;
      if (c.metric !== null) criterion.metric = c.metric;
      if (c.op !== null) criterion.op = c.op;
      if (c.target !== null) criterion.target = c.target;
      if (c.marker !== null) criterion.marker = c.marker;
      if (c.artifactPattern !== null) criterion.artifactPattern = c.artifactPattern;
      if (c.minCount !== null) criterion.minCount = c.minCount;
      return criterion;
    }),
  };
}
