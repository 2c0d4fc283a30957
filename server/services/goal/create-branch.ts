import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { and, eq } from "drizzle-orm";
import { branches } from "@/db/schema";
import { ConflictError, ValidationError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { type BranchRow, loadBranch, loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { CreateBranchInput } from "./schemas";
import { authorize } from "@/server/domain/permissions";

/**
 * Record a git branch of the session (003 tracks git state explicitly). A branch name is taken at
 * most once per session, as in git; its parent branch and the goal it was made for must be the
 * session's own.
 */
export async function createBranch(ctx: ServiceContext, input: CreateBranchInput): Promise<BranchRow> {
  authorize(ctx.actor, "goal.createBranch");
  const data = parseInput(CreateBranchInput, input, "branch.invalid_input");
  return write(ctx, async (tx) => {
    await loadSession(tx, data.sessionId);
    if (data.parentBranchId !== undefined && (await loadBranch(tx, data.parentBranchId)).sessionId !== data.sessionId) {
      throw new ValidationError("parentBranchId", "branch.parent_other_session", `branch ${data.parentBranchId} belongs to another session`);
    }
    if (data.createdByGoalId !== undefined && (await loadGoal(tx, data.createdByGoalId)).sessionId !== data.sessionId) {
      throw new ValidationError("createdByGoalId", "branch.goal_other_session", `goal ${data.createdByGoalId} belongs to another session`);
    }
    if (
      await queryGet(
        tx
          .select({ id: branches.id })
          .from(branches)
          .where(and(eq(branches.sessionId, data.sessionId), eq(branches.name, data.name))),
      )
    ) {
      throw new ConflictError("branch.exists", `branch ${data.name} already exists in session ${data.sessionId}`);
    }
    const branch = await queryGet(
      tx
        .insert(branches)
        .values({
          sessionId: data.sessionId,
          name: data.name,
          parentBranchId: data.parentBranchId ?? null,
          parentCommitSha: data.parentCommitSha ?? null,
          reason: data.reason ?? null,
          createdByGoalId: data.createdByGoalId ?? null,
          timestamp: nowOf(ctx),
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.branchCreated,
      sessionId: branch.sessionId,
      entity: "branch",
      entityId: branch.id,
      data: { name: branch.name, parentBranchId: branch.parentBranchId, goalId: branch.createdByGoalId },
    });
    return branch;
  });
}
