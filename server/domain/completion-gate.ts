/**
 * The completion gate ("BAZINGA" validation, 000): a session may complete only when every required
 * criterion is met (or blocked by a documented external blocker), every task is completed with a
 * verification, and every goal contract's two-gate verdict is SUCCESS. Returns every failed check,
 * not just the first, so the caller can fix them all.
 */
import { type CriterionState, effectiveStatus, hasDiscrepancy, isExternallyBlocked } from "./criteria";
import { type TaskStatus, type Verification } from "./task-machine";

export interface GateTask {
  key: string;
  title: string;
  status: TaskStatus;
  verification: Verification | null;
}

export interface GateGoal {
  id: number;
  goalText: string;
  /** The latest two-gate verdict of a goal that has a contract; null when never evaluated. */
  verdict: "SUCCESS" | "PARTIAL" | "BLOCKED" | null;
}

export interface CompletionInput {
  criteria: readonly CriterionState[];
  tasks: readonly GateTask[];
  /** Only goals that have a goal contract; goals without one are not gated (backward compatible). */
  contractGoals: readonly GateGoal[];
}

export interface CompletionVerdict {
  accepted: boolean;
  reasons: string[];
  /** Required criteria that are met or externally blocked. */
  metCount: number;
  /** Required criteria. */
  totalCount: number;
  externallyBlocked: number;
  discrepancies: string[];
}

export function evaluateCompletion(input: CompletionInput): CompletionVerdict {
  const reasons: string[] = [];
  const required = input.criteria.filter((c) => c.requiredForCompletion);
  const satisfied = required.filter((c) => effectiveStatus(c) === "met" || isExternallyBlocked(c));
  const externallyBlocked = required.filter(isExternallyBlocked).length;
  const discrepancies = input.criteria.filter(hasDiscrepancy).map((c) => `"${c.criterion}": claimed ${c.status}, verifier found ${c.verifierStatus}`);

  if (required.length === 0) {
    reasons.push("No required success criteria recorded: save the session's criteria before claiming completion");
  } else if (satisfied.length < required.length) {
    reasons.push(`Only ${satisfied.length}/${required.length} criteria met`);
    for (const c of required) {
      if (satisfied.includes(c)) continue;
      const status = effectiveStatus(c);
      const why =
        status === "blocked"
          ? "blocked with no evidence naming an external blocker"
          : hasDiscrepancy(c)
            ? `claimed ${c.status} but the verifier found ${c.verifierStatus}`
            : status;
      reasons.push(`Criterion "${c.criterion}" is not met: ${why}`);
    }
  }

  const notDone = input.tasks.filter((t) => t.status !== "completed");
  for (const status of ["pending", "in_progress", "claimed", "verified", "blocked"] as const) {
    const tasks = notDone.filter((t) => t.status === status);
    if (tasks.length > 0) {
      reasons.push(`${tasks.length} task${tasks.length === 1 ? " is" : "s are"} ${status.replace("_", " ")}: ${names(tasks)}`);
    }
  }
  // Only a verify move sets `verified`; `none` or a missing value is a completion nobody checked.
  const unverified = input.tasks.filter((t) => t.status === "completed" && t.verification !== "verified");
  if (unverified.length > 0) {
    reasons.push(`${unverified.length} task${unverified.length === 1 ? " was" : "s were"} completed without verification: ${names(unverified)}`);
  }

  for (const goal of input.contractGoals) {
    if (goal.verdict !== "SUCCESS") {
      reasons.push(`Goal "${goal.goalText}" has not passed both gates (latest verdict: ${goal.verdict ?? "never evaluated"})`);
    }
  }

  return {
    accepted: reasons.length === 0,
    reasons,
    metCount: satisfied.length,
    totalCount: required.length,
    externallyBlocked,
    discrepancies,
  };
}

function names(tasks: readonly GateTask[]): string {
  const shown = tasks.slice(0, 10).map((t) => t.key);
  return shown.join(", ") + (tasks.length > shown.length ? ` and ${tasks.length - shown.length} more` : "");
}
