import {
  acceptanceCriteria,
  attemptResults,
  attemptTools,
  attempts,
  branches,
  goalContracts,
  goalGateEvaluations,
  goals,
  merges,
  toolCalls,
  tools,
  trustScores,
  validationRuns,
  validationSteps,
  worktrees,
} from "@/db/schema";
import type { AttemptResultStatus } from "@/server/domain/vocabulary";
import type { GateGoal } from "@/server/domain/completion-gate";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type GoalContract, validateGoalContract } from "@/server/domain/goal-contract";
import type { AttemptEvidence } from "@/server/domain/goal-gate";
import { type AttemptHistoryEntry, evaluateAttempt } from "@/server/domain/two-gate";
import { type SessionContext, demoActor, emit, tick } from "./context";
import { GOAL_TEXTS, MODELS, SUBGOAL_TEXTS, TOOL_NAMES } from "./vocabulary";

const ORCHESTRATOR = demoActor("orchestrator", "orchestrator");
const VERIFIER = demoActor("verifier_1", "verifier");
const READ_ONLY_TOOLS = ["list_directory", "read_file", "search_code", "bazel_query"];

const CONTRACTS: unknown[] = [
  {
    goalText: "Reach >= 0.80 cross-validated accuracy with statistical evidence",
    goalType: "ml_classification",
    acceptanceCriteria: [
      { id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.8 },
      { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_*" },
      { id: "AC3", kind: "finding_count", minCount: 2 },
    ],
  },
  {
    goalText: "Build is green with zero failing tests and a release artifact",
    goalType: "build",
    acceptanceCriteria: [
      { id: "AC1", kind: "metric_threshold", metric: "tests_failed", op: "==", target: 0 },
      { id: "AC2", kind: "artifact_exists", artifactPattern: "*.tar.gz" },
    ],
    maxGoalAttempts: 4,
  },
];

export interface SessionGoalOptions {
  /** Contract goals must end in SUCCESS (the session is completed under enforcement). */
  mustSucceed: boolean;
  mainBranchId: number;
}

/** Per-session tool definitions (003: tools are session-scoped). */
function sessionTools(ctx: SessionContext): Map<string, number> {
  return new Map(
    TOOL_NAMES.map((name) => [
      name,
      ctx.w.insert(tools, { sessionId: ctx.sessionId, name, description: `The ${name.replace("_", " ")} tool`, timestamp: new Date(ctx.clock) }),
    ]),
  );
}

export function generateGoals(ctx: SessionContext, count: number, options: SessionGoalOptions): GateGoal[] {
  const toolIds = sessionTools(ctx);
  const gated: GateGoal[] = [];
  for (let i = 0; i < count; i++) {
    generateGoal(
      ctx,
      {
        text: ctx.r.pick(GOAL_TEXTS),
        order: i + 1,
        parentId: null,
        parentBranchId: options.mainBranchId,
        parentBranchName: "main",
        createdByAttemptId: null,
        depth: 0,
      },
      toolIds,
      options,
      gated,
    );
  }
  return gated;
}

interface GoalSpec {
  text: string;
  order: number;
  parentId: number | null;
  parentBranchId: number;
  parentBranchName: string;
  createdByAttemptId: number | null;
  depth: number;
}

function generateGoal(ctx: SessionContext, spec: GoalSpec, toolIds: Map<string, number>, options: SessionGoalOptions, gated: GateGoal[]): void {
  const { r, w } = ctx;
  const at = () => tick(ctx, 1, 10);
  const source = spec.parentId === null ? "cli" : "breakdown";
  const goalId = w.insert(goals, {
    sessionId: ctx.sessionId,
    goalText: spec.text,
    parentGoalId: spec.parentId,
    order: spec.order,
    source,
    createdByAttemptId: spec.createdByAttemptId,
    timestamp: at(),
  });
  emit(ctx, EVENT_TYPES.goalCreated, "goal", goalId, ORCHESTRATOR, { goalText: spec.text, source, parentGoalId: spec.parentId });
  const branchId = w.insert(branches, {
    sessionId: ctx.sessionId,
    name: `goal-${goalId}`,
    parentBranchId: spec.parentBranchId,
    parentCommitSha: sha(ctx),
    reason: "goal",
    createdByGoalId: goalId,
    timestamp: new Date(ctx.clock),
  });
  emit(ctx, EVENT_TYPES.branchCreated, "branch", branchId, ORCHESTRATOR, { name: `goal-${goalId}`, parentBranchId: spec.parentBranchId, goalId });
  const stepIds = Array.from({ length: r.int(1, 2) }, (_, i) => {
    const command = i === 0 ? "npm test" : "npm run build";
    const stepId = w.insert(validationSteps, { goalId, order: i + 1, command, source, timestamp: new Date(ctx.clock) });
    emit(ctx, EVENT_TYPES.validationStepAdded, "validation_step", stepId, ORCHESTRATOR, { goalId, order: i + 1, command });
    return stepId;
  });

  const contract = spec.depth === 0 && r.chance(0.6) ? validateGoalContract(r.pick(CONTRACTS)) : null;
  let contractId: number | null = null;
  if (contract) {
    contractId = w.insert(goalContracts, {
      goalId,
      goalText: contract.goalText,
      goalType: contract.goalType ?? null,
      maxGoalAttempts: contract.maxGoalAttempts,
      createdBy: ORCHESTRATOR.label,
      createdAt: new Date(ctx.clock),
      updatedAt: new Date(ctx.clock),
    });
    contract.acceptanceCriteria.forEach((c, position) =>
      w.insert(acceptanceCriteria, {
        contractId: contractId!,
        key: c.id,
        position,
        kind: c.kind,
        description: c.description ?? null,
        metric: c.metric ?? null,
        op: c.op ?? null,
        target: c.target ?? null,
        marker: c.marker ?? null,
        artifactPattern: c.artifactPattern ?? null,
        minCount: c.minCount ?? null,
      }),
    );
    emit(ctx, EVENT_TYPES.goalContractSet, "goal", goalId, ORCHESTRATOR, { criteria: contract.acceptanceCriteria.length });
  }

  const maxAttempts = contract?.maxGoalAttempts ?? 3;
  const succeedAt = contract && options.mustSucceed ? r.int(1, maxAttempts) : r.chance(0.6) ? r.int(1, maxAttempts) : null;
  const history: AttemptHistoryEntry[] = [];
  let verdict: GateGoal["verdict"] = null;
  let failedImplementations = 0;

  for (let n = 1; n <= maxAttempts; n++) {
    const success = n === succeedAt;
    const model = r.pick(MODELS);
    const worktreePath = `/tmp/worktrees/${ctx.sessionId}/goal-${goalId}-${n}`;
    const worktreeId = w.insert(worktrees, { branchId, path: worktreePath, startSha: sha(ctx), reason: "attempt", timestamp: at() });
    emit(ctx, EVENT_TYPES.worktreeCreated, "worktree", worktreeId, ORCHESTRATOR, { branchId, path: worktreePath });
    const attemptId = w.insert(attempts, {
      goalId,
      worktreeId,
      startCommitSha: sha(ctx),
      prompt: `Achieve the goal: ${spec.text}`,
      model,
      attemptType: "implementation",
      timestamp: new Date(ctx.clock),
    });
    emit(ctx, EVENT_TYPES.attemptStarted, "attempt", attemptId, ORCHESTRATOR, { goalId, model, attemptType: "implementation" });
    recordToolCalls(ctx, attemptId, toolIds, TOOL_NAMES, r.around(6, 1));
    const status: AttemptResultStatus = success
      ? "success"
      : r.weighted([
          ["completed", 4],
          ["error", 2],
          ["timeout", 1],
          ["tool_limit", 1],
        ] as const);
    const evidence = contract ? evidenceFor(ctx, contract, success) : {};
    const resultId = w.insert(attemptResults, {
      attemptId,
      endCommitSha: sha(ctx),
      diff: success || status === "completed" ? `diff --git a/src/main.ts b/src/main.ts\n@@ -1,3 +1,4 @@\n+// ${spec.text}\n` : null,
      status,
      statusDetail:
        status === "error"
          ? "Unexpected exception in the tool runner"
          : status === "timeout"
            ? "No activity for 2 minutes"
            : status === "tool_limit"
              ? "Tool use limit (50) exceeded"
              : null,
      metrics: evidence.metrics ?? null,
      markers: evidence.markers ?? null,
      artifacts: evidence.artifacts ?? null,
      verifiedFindings: evidence.verifiedFindings ?? null,
      timestamp: at(),
    });
    emit(ctx, EVENT_TYPES.attemptFinished, "attempt", attemptId, ORCHESTRATOR, { goalId, status });
    stepIds.forEach((stepId, i) => {
      const exitCode = success ? 0 : i === 0 ? r.pick([1, 2, 137]) : 0;
      const runId = w.insert(validationRuns, {
        validationStepId: stepId,
        attemptResultId: resultId,
        exitCode,
        output: success ? "All checks passed" : "FAIL src/main.test.ts\n  ✕ handles the empty case (12 ms)",
        timestamp: new Date(ctx.clock),
      });
      emit(ctx, EVENT_TYPES.validationRunRecorded, "attempt", attemptId, ORCHESTRATOR, {
        goalId,
        validationStepId: stepId,
        runId,
        exitCode,
        passed: exitCode === 0,
      });
    });

    if (contract && contractId !== null) {
      const trustScore = success ? r.int(82, 98) : r.int(55, 95);
      w.insert(trustScores, {
        attemptId,
        score: trustScore,
        notes: "Evidence reviewed against the contract",
        actor: VERIFIER.label,
        principalId: VERIFIER.principalId,
        at: at(),
      });
      emit(ctx, EVENT_TYPES.trustScored, "attempt", attemptId, VERIFIER, { score: trustScore });
      const result = evaluateAttempt({ contract, evidence, trustScore, attemptNumber: n, approach: model, history });
      w.insert(goalGateEvaluations, {
        goalId,
        contractId,
        attemptId,
        attemptNumber: n,
        maxAttempts: result.maxAttempts,
        trustScore,
        trustPassed: result.trust.passed,
        goalStatus: result.goal.overallStatus,
        metCount: result.goal.metCount,
        totalCount: result.goal.totalCount,
        criteriaResults: result.goal.criteriaResults,
        verdict: result.verdict,
        reason: result.reason,
        pivot: { ...result.pivot },
        actor: VERIFIER.label,
        principalId: VERIFIER.principalId,
        at: new Date(ctx.clock),
      });
      emit(ctx, EVENT_TYPES.goalGateEvaluated, "goal", goalId, VERIFIER, { verdict: result.verdict, attemptNumber: n });
      history.push({ attemptNumber: n, approach: model, goal: result.goal, verdict: result.verdict });
      verdict = result.verdict;
    }
    if (success) {
      const [fromCommitSha, toCommitSha, resultCommitSha] = [sha(ctx), sha(ctx), sha(ctx)];
      const mergeId = w.insert(merges, {
        fromBranchId: branchId,
        fromCommitSha,
        toBranchId: spec.parentBranchId,
        toCommitSha,
        resultCommitSha,
        timestamp: at(),
      });
      emit(ctx, EVENT_TYPES.mergeRecorded, "merge", mergeId, ORCHESTRATOR, { from: `goal-${goalId}`, to: spec.parentBranchName, resultCommitSha });
      break;
    }
    failedImplementations += 1;
    if (verdict === "BLOCKED") break;
    if (!contract && spec.depth === 0 && failedImplementations === 2 && r.chance(0.5)) {
      breakDown(ctx, spec, goalId, branchId, toolIds, options, gated);
      break;
    }
  }
  if (contract) gated.push({ id: goalId, goalText: spec.text, verdict });
}

/** A breakdown attempt (read-only tools) that splits a stuck goal into sub-goals (003). */
function breakDown(
  ctx: SessionContext,
  spec: GoalSpec,
  goalId: number,
  branchId: number,
  toolIds: Map<string, number>,
  options: SessionGoalOptions,
  gated: GateGoal[],
): void {
  const { r, w } = ctx;
  const model = r.pick(MODELS);
  const attemptId = w.insert(attempts, {
    goalId,
    startCommitSha: sha(ctx),
    prompt: `Break down the goal: ${spec.text}`,
    model,
    attemptType: "breakdown",
    timestamp: tick(ctx),
  });
  emit(ctx, EVENT_TYPES.attemptStarted, "attempt", attemptId, ORCHESTRATOR, { goalId, model, attemptType: "breakdown" });
  recordToolCalls(ctx, attemptId, toolIds, READ_ONLY_TOOLS, r.int(2, 4));
  w.insert(attemptResults, { attemptId, status: "completed", statusDetail: "Proposed sub-goals", timestamp: tick(ctx) });
  emit(ctx, EVENT_TYPES.attemptFinished, "attempt", attemptId, ORCHESTRATOR, { goalId, status: "completed" });
  const subgoals = [...SUBGOAL_TEXTS].sort(() => r.next() - 0.5).slice(0, r.int(2, 3));
  subgoals.forEach((text, i) =>
    generateGoal(
      ctx,
      {
        text,
        order: i + 1,
        parentId: goalId,
        parentBranchId: branchId,
        parentBranchName: `goal-${goalId}`,
        createdByAttemptId: attemptId,
        depth: spec.depth + 1,
      },
      toolIds,
      options,
      gated,
    ),
  );
}

function recordToolCalls(ctx: SessionContext, attemptId: number, toolIds: Map<string, number>, available: readonly string[], count: number): void {
  const { r, w } = ctx;
  for (const name of available) w.insert(attemptTools, { attemptId, toolId: toolIds.get(name)!, timestamp: new Date(ctx.clock) });
  for (let order = 1; order <= count; order++) {
    const toolName = r.pick(available);
    const path = `src/${r.pick(["api", "core", "db", "ui"])}/${r.pick(["index", "handler", "schema", "client"])}.ts`;
    const long = r.chance(0.1);
    w.insert(toolCalls, {
      attemptId,
      order,
      toolId: toolIds.get(toolName)!,
      toolName,
      input: JSON.stringify(toolName === "run_command" ? { command: "npm test -- --run" } : { path }),
      output: long ? Array.from({ length: 80 }, (_, i) => `${String(i + 1).padStart(4)} | line ${i + 1} of ${path}`).join("\n") : `ok: ${path}`,
      timestamp: tick(ctx, 0, 2),
    });
  }
  emit(ctx, EVENT_TYPES.toolCallsRecorded, "attempt", attemptId, ORCHESTRATOR, { attemptId, count, firstOrder: 1, lastOrder: count, redacted: false });
}

/** What an attempt reports: enough to meet the contract when it succeeds, short of it otherwise. */
function evidenceFor(ctx: SessionContext, contract: GoalContract, success: boolean): AttemptEvidence {
  const { r } = ctx;
  const evidence: Required<Pick<AttemptEvidence, "metrics" | "markers" | "artifacts" | "verifiedFindings">> = {
    metrics: {},
    markers: [],
    artifacts: [],
    verifiedFindings: 0,
  };
  const broken = success ? -1 : r.int(0, contract.acceptanceCriteria.length - 1);
  contract.acceptanceCriteria.forEach((c, i) => {
    const meet = i !== broken && (success || r.chance(0.6));
    if (c.kind === "metric_threshold" && c.metric && c.target !== undefined) {
      const margin = c.op === "==" ? 0 : 0.03 + r.next() * 0.05;
      evidence.metrics[c.metric] = meet
        ? c.target + (c.op?.startsWith("<") ? -margin : margin)
        : c.op === "=="
          ? c.target + r.int(1, 4)
          : c.target - 0.05 - r.next() * 0.1;
    } else if (c.kind === "marker_required" && c.marker && meet) {
      evidence.markers.push(c.marker.replace("*", "accuracy"));
    } else if (c.kind === "artifact_exists" && c.artifactPattern && meet) {
      evidence.artifacts.push(`dist/${c.artifactPattern.replace("*", "release-1.4.0")}`);
    } else if (c.kind === "finding_count" && c.minCount !== undefined) {
      evidence.verifiedFindings = meet ? c.minCount + r.int(0, 2) : Math.max(0, c.minCount - 1);
    }
  });
  return evidence;
}

function sha(ctx: SessionContext): string {
  return Array.from({ length: 40 }, () => "0123456789abcdef"[ctx.r.int(0, 15)]).join("");
}
