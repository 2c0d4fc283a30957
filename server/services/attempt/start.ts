import { queryGet, queryRun } from "@/db/query";
import { and, count, eq } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { attemptTools, attempts, branches, goalContracts, worktrees } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type GoalAttemptState, assertMayStartAttempt } from "@/server/domain/attempt-lifecycle";
import { NotFoundError, ValidationError } from "@/server/domain/errors";
import { goalEvaluations } from "../goal/evaluations";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadGoal } from "../goal/load";
import { parseInput } from "../parse-input";
import type { AttemptRow } from "./load";
import { StartAttemptInput } from "./schemas";
import { type ToolRow, ensureTools } from "./tools";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

export interface StartedAttempt {
  attempt: AttemptRow;
  /** The tools made available to it. */
  tools: ToolRow[];
}

/**
 * Start an attempt on a goal: its start state (model, prompt, start commit, worktree) and the
 * tools made available to it. Following 003, tools carry no read-only flag and a breakdown
 * attempt is not limited to a read-only set here: which tools an attempt gets is the
 * orchestrator's decision, and the ledger records what it decided (`attempt_tools`).
 */
export async function startAttempt(ctx: ServiceContext, unredacted: StartAttemptInput): Promise<StartedAttempt> {
  const input = redactInput(unredacted);
  authorize(ctx.actor, "attempt.start");
  const data = parseInput(StartAttemptInput, input, "attempt.invalid_input");
  return write(ctx, async (tx) => {
    const goal = await loadGoal(tx, data.goalId);
    if (data.worktreeId !== undefined) {
      const worktree = await queryGet(
        tx
          .select({ sessionId: branches.sessionId })
          .from(worktrees)
          .innerJoin(branches, eq(branches.id, worktrees.branchId))
          .where(eq(worktrees.id, data.worktreeId)),
      );
      if (!worktree) throw new NotFoundError("worktree", data.worktreeId);
      if (worktree.sessionId !== goal.sessionId)
        throw new ValidationError("worktreeId", "attempt.worktree_other_session", `worktree ${data.worktreeId} belongs to another session`);
    }
    const attemptType = data.attemptType ?? "implementation";
    if (attemptType === "implementation") assertMayStartAttempt(await goalAttemptState(tx, goal.id), attemptType);
    const now = nowOf(ctx);
    const attempt = await queryGet(
      tx
        .insert(attempts)
        .values({
          goalId: goal.id,
          worktreeId: data.worktreeId ?? null,
          startCommitSha: data.startCommitSha ?? null,
          prompt: data.prompt ?? null,
          model: data.model ?? null,
          attemptType,
          timestamp: now,
        })
        .returning(),
    );
    const { byName, created } = await ensureTools(tx, goal.sessionId, data.tools ?? [], now);
    const available = [...byName.values()];
    if (available.length > 0)
      await queryRun(tx.insert(attemptTools).values(available.map((tool) => ({ attemptId: attempt.id, toolId: tool.id, timestamp: now }))));
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.attemptStarted,
      sessionId: goal.sessionId,
      entity: "attempt",
      entityId: attempt.id,
      data: { goalId: goal.id, model: attempt.model, attemptType, tools: available.map((tool) => tool.name), createdTools: created },
    });
    return { attempt, tools: available };
  });
}

/** What the attempt lifecycle needs to know about a goal: its latest verdict, its limit, its attempts so far. */
async function goalAttemptState(tx: Tx, goalId: number): Promise<GoalAttemptState> {
  const contract = await queryGet(tx.select({ max: goalContracts.maxGoalAttempts }).from(goalContracts).where(eq(goalContracts.goalId, goalId)));
  const started = contract
    ? ((
        await queryGet(
          tx
            .select({ n: count() })
            .from(attempts)
            .where(and(eq(attempts.goalId, goalId), eq(attempts.attemptType, "implementation"))),
        )
      )?.n ?? 0)
    : 0;
  return { goalId, latest: (await goalEvaluations(tx, goalId)).at(-1), maxAttempts: contract?.max ?? null, implementationAttempts: started };
}
