import type { DomainError } from "@/server/domain/errors";
import { isDomainError } from "@/server/domain/errors";
import { authorize } from "@/server/domain/permissions";
import { MOVE_ACTIONS } from "@/server/domain/task-machine";
import type { ServiceContext } from "../context";
import { parseInput } from "../parse-input";
import { moveParsedTask } from "../task/move";
import { DecideResetsInput } from "./schemas";

export type ResetDecision = "approve_reset" | "decline_reset";

/** What became of one task of a bulk decision. */
export type DecisionResult =
  | { sessionId: string; key: string; outcome: "applied"; status: string; version: number }
  /** Refused by the ledger: the rule and its message, verbatim, as the single move would have said. */
  | { sessionId: string; key: string; outcome: "refused"; kind: DomainError["kind"]; rule: string; message: string };

export interface DecisionReport {
  results: DecisionResult[];
  applied: number;
  refused: number;
}

/**
 * Approve or decline the reset of several blocked tasks with one reason. Each task is its own move:
 * its own transaction, transition and event, decided by the task machine exactly as the single move
 * (`task.approveReset` / `task.declineReset`) would decide it. A task the machine refuses (moved
 * meanwhile, no reset request to decline, gone) is reported with its rule and message and the
 * others still apply; nothing is rolled back. The caller's role is checked once first, with the
 * single move's rule, so a role that may not decide gets one refusal and nothing is tried.
 * Errors that are not the ledger's (a bug, a broken disk) stop the batch and propagate.
 */
export async function decideResets(ctx: ServiceContext, decision: ResetDecision, raw: DecideResetsInput): Promise<DecisionReport> {
  const input = parseInput(DecideResetsInput, raw, "task.invalid_input");
  authorize(ctx.actor, MOVE_ACTIONS[decision]);
  const results: DecisionResult[] = [];
  // One after another, in the order given: each its own transaction.
  for (const task of input.tasks) {
    const ref = { sessionId: task.sessionId, key: task.key };
    try {
      const moved = await moveParsedTask(ctx, { ...task, move: decision, reason: input.reason });
      results.push({ ...ref, outcome: "applied", status: moved.status, version: moved.version });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      results.push({ ...ref, outcome: "refused", kind: error.kind, rule: error.rule, message: error.message });
    }
  }
  const applied = results.filter((r) => r.outcome === "applied").length;
  return { results, applied, refused: results.length - applied };
}
