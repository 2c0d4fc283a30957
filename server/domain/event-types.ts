/**
 * Names of the rows appended to `events`: one per mutation, written in the mutation's transaction.
 * The live stream, the activity feed and analytics read these names.
 */
import type { TaskMove } from "./task-machine";

export const TASK_MOVE_EVENTS: Readonly<Record<TaskMove, string>> = {
  start: "task.started",
  claim: "task.claimed",
  verify: "task.verified",
  block: "task.blocked",
  complete: "task.completed",
  request_reset: "task.reset_requested",
  approve_reset: "task.reset_approved",
  decline_reset: "task.reset_declined",
};

export const EVENT_TYPES = {
  sessionCreated: "session.created",
  sessionStatusChanged: "session.status_changed",
  sessionEnforcementChanged: "session.enforcement_changed",
  taskCreated: "task.created",
  /** Details changed (assignee, review counts, branch…) without a status change. */
  taskUpdated: "task.updated",
  /** An observe session's orchestrator reported a status; `unverified_completion` when it skipped verification. */
  taskReported: "task.reported",
  unverifiedCompletion: "unverified_completion",
  criteriaSaved: "criteria.saved",
  criterionUpdated: "criterion.updated",
  criterionVerified: "criterion.verified",
  completionChecked: "completion.checked",
  goalCreated: "goal.created",
  goalContractSet: "goal.contract_set",
  attemptStarted: "attempt.started",
  attemptFinished: "attempt.finished",
  trustScored: "attempt.trust_scored",
  goalGateEvaluated: "goal.gate_evaluated",
  logsAppended: "logs.appended",
  tokensLogged: "tokens.logged",
  stateSaved: "state.saved",
  skillOutputSaved: "skill_output.saved",
  decisionSaved: "decision.saved",
  planSaved: "plan.saved",
  planProgressUpdated: "plan.progress_updated",
  contextPackageSaved: "context_package.saved",
  contextConsumed: "context_package.consumed",
  errorPatternSaved: "error_pattern.saved",
  errorConfidenceUpdated: "error_pattern.confidence_updated",
  errorPatternsCleanedUp: "error_pattern.cleaned_up",
  strategySaved: "strategy.saved",
  strategyHelpfulnessUpdated: "strategy.helpfulness_updated",
  strategiesExtracted: "strategy.extracted",
  consumptionSaved: "consumption.saved",
  validationStepAdded: "goal.validation_step_added",
  branchCreated: "branch.created",
  worktreeCreated: "worktree.created",
  mergeRecorded: "merge.recorded",
  toolCallsRecorded: "attempt.tool_calls_recorded",
  validationRunRecorded: "attempt.validation_run_recorded",
  /** A runtime session (Claude Code) started, resumed, was cleared or compacted: its hooks report to the ledger. */
  runtimeSessionStarted: "runtime.session_started",
  /** A runtime's stop was refused because a linked session's completion gate rejects; data has the reasons given to the agent. */
  runtimeStopHeld: "runtime.stop_held",
  /** A runtime's stop went through with a linked session's gate still rejecting (the cap, or the runtime's own loop guard). */
  runtimeStopUnverified: "runtime.stop_unverified",
  /** A stop went through after held ones (the gate now accepts, or no linked session is active): the count of held stops starts again. */
  runtimeStopReleased: "runtime.stop_released",
} as const;
