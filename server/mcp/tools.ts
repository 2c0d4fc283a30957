import type { z } from "zod";
import { FinishAttemptInput, RecordTrustScoreInput, StartAttemptInput } from "@/server/services/attempt/schemas";
import { CheckCompletionInput } from "@/server/services/completion/schemas";
import { SaveCriteriaInput, UpdateCriterionInput, VerifyCriterionInput } from "@/server/services/criteria/schemas";
import { CreateGoalInput, EvaluateGoalGateInput, SetGoalContractInput } from "@/server/services/goal/schemas";
import { LogInteractionInput, SaveReasoningInput } from "@/server/services/log/schemas";
import { CreateSessionInput, GetSessionInput } from "@/server/services/session/schemas";
import { CreateTaskInput, TaskMoveInput } from "@/server/services/task/schemas";

type Row = Record<string, unknown>;

/**
 * One MCP tool: the tRPC procedure it calls (through the CLI's Api, local or remote), with that
 * procedure's own input schema, so the arguments, their validation and every rule are the API's.
 */
export interface ToolSpec {
  name: string;
  description: string;
  input: z.ZodObject;
  /** The procedure, or `session-state` for the composed read that the session resource serves too. */
  call: { kind: "mutation" | "query"; path: string } | "session-state";
  /** One line for the agent; the full result goes in structuredContent. */
  summary: (result: Row, args: Row) => string;
}

const REFUSAL =
  "A refusal is returned as an error whose text starts with the rule that refused (e.g. task.claimant_cannot_verify) and says what to do instead; nothing was written.";

const task = (args: Row) => `${String(args.sessionId)}/${String(args.key)}`;

export const TOOLS: readonly ToolSpec[] = [
  {
    name: "create_session",
    description: `Start a ledger session for a piece of work (one per orchestration run). Use it first; keep the returned id for every later call. Give your own id to make it idempotent across retries. ${REFUSAL}`,
    input: CreateSessionInput,
    call: { kind: "mutation", path: "session.create" },
    summary: (r) => `Created session ${String(r.id)} (${String(r.enforcement)}).`,
  },
  {
    name: "get_session",
    description:
      "Read where a session stands: the session, its tasks grouped by state (with claimant, verifier, failures and reset requests), its success criteria, and the completion gate's current verdict with every reason it would reject. Use it before deciding the next move and before claiming the work is done. Also served as the resource proofgate://sessions/{sessionId}.",
    input: GetSessionInput,
    call: "session-state",
    summary: (r) => {
      const gate = r.completionGate as { accepted: boolean; reasons: string[] };
      const counts = Object.entries(r.taskCounts as Record<string, number>)
        .filter(([, n]) => n > 0)
        .map(([state, n]) => `${n} ${state}`)
        .join(", ");
      return `Session ${String((r.session as Row).id)} is ${String((r.session as Row).status)}; tasks: ${counts || "none"}; completion gate: ${gate.accepted ? "would accept" : `would reject (${gate.reasons.join("; ")})`}.`;
    },
  },
  {
    name: "create_task",
    description: `Add a task (a task group) to a session; it starts pending. Use it when planning the work, one task per unit someone will claim and someone else will verify. ${REFUSAL}`,
    input: CreateTaskInput,
    call: { kind: "mutation", path: "task.create" },
    summary: (r, a) => `Created task ${task(a)} (${String(r.status)}).`,
  },
  {
    name: "claim_task",
    description: `Claim that you finished a task (pending or in_progress → claimed), with evidence (paths, links, test output). Claiming is not done: a different agent must verify_task it. Use it when your work on the task is ready for review. ${REFUSAL}`,
    input: TaskMoveInput,
    call: { kind: "mutation", path: "task.claim" },
    summary: (r, a) => `Claimed ${task(a)} as ${String(r.claimedBy)}; it now needs verify_task by a different agent.`,
  },
  {
    name: "verify_task",
    description: `Verify another agent's claimed task (claimed → verified) with a proofpack: {verdict: "PASSED", checks: [{name, passed, detail}]}. Use it after you checked the claimed work yourself. The claimant may never verify its own claim (refused as task.claimant_cannot_verify); if the work fails, use block_task instead. ${REFUSAL}`,
    input: TaskMoveInput,
    call: { kind: "mutation", path: "task.verify" },
    summary: (r, a) => `Verified ${task(a)} as ${String(r.verifiedBy)}; complete_task can now close it.`,
  },
  {
    name: "block_task",
    description: `Reject another agent's claimed task (claimed → blocked) with the failures found (and optionally a proofpack with verdict BLOCKED). Use it when verification fails. A blocked task goes back to work only through request_reset and a human's approval. ${REFUSAL}`,
    input: TaskMoveInput,
    call: { kind: "mutation", path: "task.block" },
    summary: (r, a) => `Blocked ${task(a)} as ${String(r.blockedBy)}; request_reset asks a human to send it back to pending.`,
  },
  {
    name: "complete_task",
    description: `Complete a verified task (verified → completed). Use it after verify_task; a claimed, pending or blocked task cannot be completed (the refusal names the move that is missing). ${REFUSAL}`,
    input: TaskMoveInput,
    call: { kind: "mutation", path: "task.complete" },
    summary: (_r, a) => `Completed ${task(a)}.`,
  },
  {
    name: "request_reset",
    description: `Ask for a blocked task to be reset to pending, with a reason (what will be done differently). Use it after block_task; the request waits in the approval inbox until a human (lead or admin) approves it, so poll get_session instead of retrying. ${REFUSAL}`,
    input: TaskMoveInput,
    call: { kind: "mutation", path: "task.requestReset" },
    summary: (_r, a) => `Requested a reset of ${task(a)}; it stays blocked until a lead or admin approves the reset.`,
  },
  {
    name: "save_success_criteria",
    description: `Save the session's success criteria (all or nothing; existing criteria are kept and their text never changes: a changed goal is a new criterion that names the one it supersedes). Use it at the start, from the user's request. The completion gate requires every required criterion to be met. ${REFUSAL}`,
    input: SaveCriteriaInput,
    call: { kind: "mutation", path: "criteria.save" },
    summary: (r) => `Saved ${String(r.count)} criteria.`,
  },
  {
    name: "update_success_criterion",
    description: `Report a criterion's status (pending, met, blocked, failed) with the actual value and evidence, as the one doing the work. Use it when you reach (or cannot reach) a criterion; a verifier's finding (verify_success_criterion) wins over yours at the completion gate. ${REFUSAL}`,
    input: UpdateCriterionInput,
    call: { kind: "mutation", path: "criteria.update" },
    summary: (r) => `Criterion "${String(r.criterion)}" is ${String(r.status)}.`,
  },
  {
    name: "verify_success_criterion",
    description: `Record a verifier's finding on a criterion beside the claimant's; where they disagree the completion gate trusts the verifier. Use it when you checked a criterion independently. ${REFUSAL}`,
    input: VerifyCriterionInput,
    call: { kind: "mutation", path: "criteria.verify" },
    summary: (r) => `Recorded the verifier's finding on "${String(r.criterion)}": ${String(r.verifierStatus)}.`,
  },
  {
    name: "check_completion",
    description:
      "Run the completion gate on a session and record the check: accepted only if every required criterion is met (or blocked by a documented external blocker), no task is pending, claimed or blocked, and every goal contract's verdict is SUCCESS. Use it before you say the work is done; a rejection comes back as a result (not an error) listing every reason, each one a thing to fix.",
    input: CheckCompletionInput,
    call: { kind: "mutation", path: "completion.check" },
    summary: (r) =>
      r.accepted
        ? `Completion gate ACCEPTED (${String(r.metCount)}/${String(r.totalCount)} required criteria met).`
        : `Completion gate REJECTED (${String(r.metCount)}/${String(r.totalCount)} required criteria met):\n${(r.reasons as string[]).map((reason) => `- ${reason}`).join("\n")}`,
  },
  {
    name: "create_goal",
    description: `Create a goal (or, with parentGoalId, a sub-goal) in a session. Use it to start the shots-on-goal flow, which continues with set_goal_contract, start_attempt, finish_attempt, record_trust_score and evaluate_goal. ${REFUSAL}`,
    input: CreateGoalInput,
    call: { kind: "mutation", path: "goal.create" },
    summary: (r) => `Created goal ${String(r.id)}.`,
  },
  {
    name: "set_goal_contract",
    description: `Set a goal's contract: {goalText, goalType, acceptanceCriteria: [{id, kind: metric_threshold|marker_required|artifact_exists|finding_count, …}], maxGoalAttempts}. Use it before the first attempt; a contract is immutable once an attempt was evaluated against it. ${REFUSAL}`,
    input: SetGoalContractInput,
    call: { kind: "mutation", path: "goal.setContract" },
    summary: (_r, a) => `Set the contract of goal ${String(a.goalId)}.`,
  },
  {
    name: "start_attempt",
    description: `Start an attempt at a goal (implementation or breakdown), with the model, prompt, start commit and tools it gets. Use it each time you try the goal again; keep the attempt id for finish_attempt. ${REFUSAL}`,
    input: StartAttemptInput,
    call: { kind: "mutation", path: "attempt.start" },
    summary: (r) => `Started attempt ${String((r.attempt as Row).id)}.`,
  },
  {
    name: "finish_attempt",
    description: `Finish an attempt with its result status and the goal gate's evidence: metrics, markers, artifacts, verified findings, output (its [METRIC:name] value lines count). Use it when the attempt ends, then have a verifier record_trust_score and evaluate_goal. ${REFUSAL}`,
    input: FinishAttemptInput,
    call: { kind: "mutation", path: "attempt.finish" },
    summary: (_r, a) => `Finished attempt ${String(a.attemptId)} (${String(a.status)}).`,
  },
  {
    name: "record_trust_score",
    description: `Record a verifier's trust score (0–100; the trust gate passes at 80) for a finished attempt. Use it after reviewing the attempt's evidence, before evaluate_goal. ${REFUSAL}`,
    input: RecordTrustScoreInput,
    call: { kind: "mutation", path: "attempt.trustScore" },
    summary: (_r, a) => `Recorded trust score ${String(a.score)} for attempt ${String(a.attemptId)}.`,
  },
  {
    name: "evaluate_goal",
    description: `Judge a finished attempt with the two gates (goal contract and trust score): SUCCESS, PARTIAL or BLOCKED, with each acceptance criterion's result and what to try next. Use it after finish_attempt and record_trust_score. ${REFUSAL}`,
    input: EvaluateGoalGateInput,
    call: { kind: "mutation", path: "goal.evaluate" },
    summary: (r) => `${String(r.verdict)}: ${String(r.summary)}`,
  },
  {
    name: "log_interaction",
    description: `Log an agent interaction (what an agent said or did) in the session's history; secrets are redacted on the way in. Use it to leave an audit trail of the conversation. ${REFUSAL}`,
    input: LogInteractionInput,
    call: { kind: "mutation", path: "log.interaction" },
    summary: (r) => `Logged interaction ${String(r.id)}.`,
  },
  {
    name: "save_reasoning",
    description: `Save an agent's reasoning for a phase (understanding, approach, decisions, risks, …) with confidence and references; secrets are redacted. Use it to record why you decided something. ${REFUSAL}`,
    input: SaveReasoningInput,
    call: { kind: "mutation", path: "log.reasoning" },
    summary: (r) => `Saved reasoning ${String(r.id)}.`,
  },
];
