import { taskTransitions, tasks } from "@/db/schema";
import type { Actor } from "@/server/domain/actors";
import { EVENT_TYPES, TASK_MOVE_EVENTS } from "@/server/domain/event-types";
import type { GateTask } from "@/server/domain/completion-gate";
import {
  type MoveInput,
  type TaskMove,
  type TaskState,
  type TaskStatus,
  type Verification,
  applyMove,
  observeReportedStatus,
} from "@/server/domain/task-machine";
import { moveTransitionValues } from "@/server/services/task/transition-values";
import { LEAD, type SessionContext, demoActor, emit, tick } from "./context";
import { CHECKS, DEVELOPERS, FAILURES, TASK_TITLES, VERIFIERS } from "./vocabulary";

/** Where a generated task ends up. */
export type TaskFate = TaskStatus | "completed_after_reset" | "blocked_reset_requested" | "completed_unverified";

interface LiveTask extends TaskState {
  id: number;
  key: string;
  title: string;
  version: number;
  resetCount: number;
  verification: Verification | null;
}

const ORCHESTRATOR = demoActor("orchestrator", "orchestrator");

/** Create a task and walk it through the machine to its fate, one legal move at a time. */
export function generateTask(ctx: SessionContext, index: number, fate: TaskFate): GateTask {
  const { r } = ctx;
  const key = `group_${String.fromCharCode(97 + (index % 26))}${index >= 26 ? Math.floor(index / 26) : ""}`;
  const title = `${r.pick(TASK_TITLES)}${index >= TASK_TITLES.length ? ` (${index + 1})` : ""}`;
  const developer = demoActor(r.pick(DEVELOPERS), "agent");
  const verifier = demoActor(r.pick(VERIFIERS), "verifier");
  tick(ctx, 0, 3);
  const id = ctx.w.insert(tasks, {
    sessionId: ctx.sessionId,
    key,
    title,
    status: "pending",
    assignee: developer.label,
    complexity: r.int(1, 10),
    tier: r.chance(0.3) ? "Senior Software Engineer" : "Developer",
    branch: `feature/${key}`,
    createdAt: new Date(ctx.clock),
    updatedAt: new Date(ctx.clock),
  });
  const task: LiveTask = {
    id,
    key,
    title,
    status: "pending",
    claimedBy: null,
    claimedByPrincipal: null,
    resetRequested: false,
    version: 1,
    resetCount: 0,
    verification: null,
  };
  ctx.w.insert(taskTransitions, {
    taskId: id,
    sessionId: ctx.sessionId,
    move: "create",
    toStatus: "pending",
    actor: ORCHESTRATOR.label,
    principalId: ORCHESTRATOR.principalId,
    role: ORCHESTRATOR.role,
    at: new Date(ctx.clock),
  });
  emit(ctx, EVENT_TYPES.taskCreated, "task", id, ORCHESTRATOR, { key, title });

  if (fate === "pending") return gateTask(task);
  const passes = (): MoveInput => ({
    proofpack: { verdict: "PASSED", checks: CHECKS.slice(0, r.int(2, 5)).map((name) => ({ name, passed: true })), notes: "All checks green" },
  });
  const fails = (): MoveInput => {
    const failures = Array.from(new Set(Array.from({ length: r.int(1, 3) }, () => r.pick(FAILURES))));
    return { failures, proofpack: { verdict: "BLOCKED", checks: failures.map((f) => ({ name: f.split(" - ")[0] ?? f, passed: false, detail: f })) } };
  };
  const claim = (): MoveInput => ({ evidence: [`artifacts/${ctx.sessionId}/${key}/test-results.txt`, `https://ci.example.com/runs/${r.int(1000, 99999)}`] });

  if (fate === "completed_unverified") {
    move(ctx, task, "start", ORCHESTRATOR);
    report(ctx, task, "completed");
    return gateTask(task);
  }
  // Most agents claim straight from pending (the machine allows it): about four transitions a task.
  if (fate === "in_progress" || r.chance(0.25)) move(ctx, task, "start", ORCHESTRATOR);
  if (fate === "in_progress") return gateTask(task);
  move(ctx, task, "claim", developer, claim());
  if (fate === "claimed") return gateTask(task);
  if (fate === "blocked" || fate === "blocked_reset_requested" || fate === "completed_after_reset") {
    move(ctx, task, "block", verifier, fails());
    if (fate === "blocked") return gateTask(task);
    move(ctx, task, "request_reset", ORCHESTRATOR, { reason: "Fixes pushed for every listed failure; ready to retry" });
    if (fate === "blocked_reset_requested") return gateTask(task);
    move(ctx, task, "approve_reset", LEAD, { reason: "Failures reviewed; retry with the fixes" });
    move(ctx, task, "claim", developer, claim());
  }
  move(ctx, task, "verify", verifier, passes());
  if (fate === "verified") return gateTask(task);
  move(ctx, task, "complete", ORCHESTRATOR);
  return gateTask(task);
}

function move(ctx: SessionContext, task: LiveTask, name: TaskMove, actor: Actor, input: MoveInput = {}): void {
  const at = tick(ctx);
  const outcome = applyMove(task, name, actor, input, at);
  const { resetCount, ...patch } = outcome.patch;
  if (resetCount === "increment") task.resetCount += 1;
  task.version += 1;
  ctx.w.update(tasks, task.id, { ...patch, status: outcome.to, resetCount: task.resetCount, version: task.version, updatedAt: at });
  ctx.w.insert(taskTransitions, moveTransitionValues({ id: task.id, sessionId: ctx.sessionId, claimedBy: task.claimedBy }, name, outcome, actor, at));
  emit(ctx, TASK_MOVE_EVENTS[name], "task", task.id, actor, { key: task.key, from: outcome.from, to: outcome.to });
  task.status = outcome.to;
  if (patch.claimedBy !== undefined) task.claimedBy = patch.claimedBy;
  if (patch.claimedByPrincipal !== undefined) task.claimedByPrincipal = patch.claimedByPrincipal;
  if (patch.resetRequested !== undefined) task.resetRequested = patch.resetRequested;
  if (patch.verification !== undefined) task.verification = patch.verification;
}

/** An observe session's orchestrator reporting a status straight, as BAZINGA run unchanged does. */
function report(ctx: SessionContext, task: LiveTask, reported: TaskStatus): void {
  const at = tick(ctx);
  const outcome = observeReportedStatus(task, reported);
  task.version += 1;
  ctx.w.update(tasks, task.id, {
    status: outcome.to,
    verification: outcome.verification,
    completedAt: reported === "completed" ? at : undefined,
    completedBy: reported === "completed" ? ORCHESTRATOR.label : undefined,
    version: task.version,
    updatedAt: at,
  });
  ctx.w.insert(taskTransitions, {
    taskId: task.id,
    sessionId: ctx.sessionId,
    move: "report",
    fromStatus: task.status,
    toStatus: outcome.to,
    actor: ORCHESTRATOR.label,
    principalId: ORCHESTRATOR.principalId,
    role: ORCHESTRATOR.role,
    verification: outcome.verification,
    at,
  });
  emit(ctx, outcome.unverified ? EVENT_TYPES.unverifiedCompletion : EVENT_TYPES.taskReported, "task", task.id, ORCHESTRATOR, {
    key: task.key,
    from: task.status,
    to: outcome.to,
  });
  task.status = outcome.to;
  task.verification = outcome.verification;
}

function gateTask(task: LiveTask): GateTask {
  return { key: task.key, title: task.title, status: task.status, verification: task.verification };
}
