import { and, count, eq } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { attemptTools, attempts, branches, goalContracts, worktrees } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ForbiddenTransitionError, NotFoundError, ValidationError } from "@/server/domain/errors";
import { goalEvaluations } from "../goal/evaluations";
import { type ServiceContext, appendEvent, nowOf, requireRole, write } from "../context";
import { loadGoal } from "../goal/load";
import { parseInput } from "../parse-input";
import { RECORD_ROLES } from "../goal/roles";
import type { AttemptRow } from "./load";
import { StartAttemptInput } from "./schemas";
import { type ToolRow, ensureTools } from "./tools";
import { redactInput } from "../redact-input";

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
export function startAttempt(ctx: ServiceContext, unredacted: StartAttemptInput): StartedAttempt {
  const input = redactInput(unredacted);
  requireRole(ctx, RECORD_ROLES, "attempt.start_role", "start attempts");
  const data = parseInput(StartAttemptInput, input, "attempt.invalid_input");
  return write(ctx, (tx) => {
    const goal = loadGoal(tx, data.goalId);
    if (data.worktreeId !== undefined) {
      const worktree = tx.select({ sessionId: branches.sessionId }).from(worktrees).innerJoin(branches, eq(branches.id, worktrees.branchId)).where(eq(worktrees.id, data.worktreeId)).get();
      if (!worktree) throw new NotFoundError("worktree", data.worktreeId);
      if (worktree.sessionId !== goal.sessionId) throw new ValidationError("worktreeId", "attempt.worktree_other_session", `worktree ${data.worktreeId} belongs to another session`);
    }
    const attemptType = data.attemptType ?? "implementation";
    if (attemptType === "implementation") assertGoalOpen(tx, goal.id);
    const now = nowOf(ctx);
    const attempt = tx
      .insert(attempts)
      .values({ goalId: goal.id, worktreeId: data.worktreeId ?? null, startCommitSha: data.startCommitSha ?? null, prompt: data.prompt ?? null, model: data.model ?? null, attemptType, timestamp: now })
      .returning()
      .get();
    const { byName, created } = ensureTools(tx, goal.sessionId, data.tools ?? [], now);
    const available = [...byName.values()];
    if (available.length > 0) tx.insert(attemptTools).values(available.map((tool) => ({ attemptId: attempt.id, toolId: tool.id, timestamp: now }))).run();
    appendEvent(tx, ctx, {
      type: EVENT_TYPES.attemptStarted,
      sessionId: goal.sessionId,
      entity: "attempt",
      entityId: attempt.id,
      data: { goalId: goal.id, model: attempt.model, attemptType, tools: available.map((tool) => tool.name), createdTools: created },
    });
    return { attempt, tools: available };
  });
}

/**
 * A goal that succeeded, or that the attempt limit BLOCKED, takes no more implementation attempts
 * (002: "max attempts before BLOCKED"); a breakdown into sub-goals is still allowed. Nor may a
 * contract goal start more implementation attempts than its contract allows.
 */
function assertGoalOpen(tx: Tx, goalId: number): void {
  const latest = goalEvaluations(tx, goalId).at(-1);
  if (latest?.verdict === "SUCCESS") throw new ForbiddenTransitionError("attempt.goal_succeeded", `goal ${goalId} already succeeded: no more attempts are needed`);
  if (latest?.verdict === "BLOCKED") {
    throw new ForbiddenTransitionError("attempt.goal_blocked", `goal ${goalId} is BLOCKED (${latest.reason}): break it down into sub-goals (a breakdown attempt) or escalate to a lead`);
  }
  const contract = tx.select({ max: goalContracts.maxGoalAttempts }).from(goalContracts).where(eq(goalContracts.goalId, goalId)).get();
  if (!contract) return;
  const started = tx.select({ n: count() }).from(attempts).where(and(eq(attempts.goalId, goalId), eq(attempts.attemptType, "implementation"))).get()?.n ?? 0;
  if (started >= contract.max) {
    throw new ForbiddenTransitionError("attempt.limit_reached", `goal ${goalId} already has ${started} of its ${contract.max} allowed attempts: evaluate the last one, or break the goal down`);
  }
}
