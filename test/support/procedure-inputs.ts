/**
 * Test support: a small world holding one of everything, and a valid input for every procedure
 * of the app router against it, so a refusal in the role and fuzz tests can only come from who
 * is calling or from what the test changed in the input. `procedure-inputs` keeps the list
 * complete: a procedure added without an input here fails that check.
 */
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import type { Db } from "@/db/client";
import { type Caller, type Fixture, PASSED, setup } from "@/test/support/api-helpers";

const S = { sessionId: "s1" };
const T = { ...S, key: "t1" };

export const CONTRACT = {
  goalText: "Analyze customer churn with statistical evidence",
  goalType: "ml_classification",
  acceptanceCriteria: [
    { id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.75 },
    { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_accuracy" },
  ],
};

/** A valid input for every procedure (undefined: the procedure takes none). */
export const VALID_INPUTS: Record<string, unknown> = {
  "session.list": {},
  "session.get": { id: "s1" },
  "session.create": { id: "s2", requirements: "r", metadata: { note: "m" }, flags: { fast: true } },
  "session.updateStatus": { ...S, status: "failed" },
  "session.setEnforcement": { ...S, enforcement: "observe", reason: "r" },
  "session.overview": undefined,
  "session.enforcementHistory": S,
  "task.list": S,
  "task.get": T,
  "task.board": S,
  "task.inbox": undefined,
  "task.inboxCount": undefined,
  "task.create": { ...S, key: "t2", title: "x", contextReferences: [{ file: "a.md" }] },
  "task.report": { ...T, title: "renamed" },
  "task.start": { ...S, key: "t3" },
  "task.claim": { ...S, key: "t3", evidence: ["out.txt"] },
  "task.verify": { ...T, proofpack: PASSED },
  "task.block": { ...T, failures: ["x"] },
  "task.complete": { ...S, key: "t4" },
  "task.requestReset": { ...S, key: "t5", reason: "r" },
  "task.approveReset": { ...S, key: "t5", reason: "r" },
  "task.declineReset": { ...S, key: "t6", reason: "r" },
  "task.approveResets": { tasks: [{ ...S, key: "t5" }], reason: "r" },
  "task.declineResets": { tasks: [{ ...S, key: "t6" }], reason: "r" },
  "criteria.list": S,
  "criteria.save": { ...S, criteria: [{ criterion: "new" }] },
  "criteria.update": { ...S, criterion: "c1", status: "met" },
  "criteria.verify": { ...S, criterion: "c1", status: "met" },
  "criteria.setRequired": { ...S, criterion: "c1", required: false },
  "completion.check": S,
  "completion.list": S,
  "completion.preview": S,
  "runtime.activity": S,
  "goal.tree": S,
  "goal.get": { goalId: 1 },
  "goal.evaluations": { goalId: 1 },
  "goal.create": { ...S, goalText: "a sub-goal", parentGoalId: 1 },
  "goal.addValidationStep": { goalId: 1, command: "npm test" },
  "goal.setContract": { goalId: 1, contract: CONTRACT },
  "goal.createBranch": { ...S, name: "feature/x" },
  "goal.createWorktree": { branchId: 1, path: "/tmp/wt-x" },
  "goal.recordMerge": { fromBranchId: 2, fromCommitSha: "abcdef1", toBranchId: 1, toCommitSha: "abcdef2", resultCommitSha: "abcdef3" },
  "goal.evaluate": { attemptId: 1 },
  "attempt.get": { attemptId: 1 },
  "attempt.start": { goalId: 1, model: "m" },
  "attempt.toolCalls": { attemptId: 2, calls: [{ tool: "bash", input: { command: "ls" }, output: "a.txt" }] },
  "attempt.finish": { attemptId: 2, status: "success", metrics: { cv_accuracy_mean: 0.8 } },
  "attempt.validationRun": { attemptId: 1, validationStepId: 1, exitCode: 0, output: "ok" },
  "attempt.trustScore": { attemptId: 1, score: 90 },
  "log.list": S,
  "log.interaction": { ...S, agentType: "a", content: "c" },
  "log.reasoning": { ...S, agentType: "a", phase: "understanding", content: "c" },
  "log.getReasoning": S,
  "log.reasoningTimeline": S,
  "log.mandatoryPhases": { ...S, groupId: "g", agentType: "a" },
  "log.event": { ...S, subtype: "x", payload: { verdict: "ok" } },
  "log.events": S,
  "log.tokens": { ...S, agentType: "a", tokens: 1 },
  "log.tokenSummary": S,
  "log.tokensOverTime": S,
  "log.batch": { ...S, rows: [{ kind: "tokens", agentType: "a", tokens: 1 }] },
  "log.saveState": { ...S, stateType: "pm", data: {} },
  "log.state": { ...S, stateType: "pm" },
  "log.saveSkillOutput": { ...S, skillName: "s", data: {} },
  "log.skillOutput": { ...S, skillName: "s" },
  "log.skillOutputs": { ...S, skillNames: ["s"] },
  "log.saveErrorPattern": { projectId: "p", errorType: "TypeError", errorMessage: "x is undefined", solution: "define x", sessionId: S.sessionId },
  "log.errorPatterns": { projectId: "p" },
  "log.updateErrorConfidence": { projectId: "p", patternHash: "h", outcome: "success" },
  "log.cleanupErrorPatterns": { projectId: "p" },
  "log.saveStrategy": { projectId: "p", topic: "implementation", insight: "test first" },
  "log.strategies": { projectId: "p" },
  "log.updateStrategyHelpfulness": { strategyId: "s1" },
  "log.extractStrategies": { ...S, groupId: "g", projectId: "p" },
  "log.saveConsumption": { ...S, groupId: "g", agentType: "developer", iteration: 1, packageId: 1 },
  "log.consumption": S,
  "log.sessionLearning": S,
  "log.decision": { ...S, decisionType: "d", data: {} },
  "log.savePlan": { ...S, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "n" }] },
  "log.planProgress": { ...S, phase: 1, status: "completed" },
  "log.plan": S,
  "log.saveContextPackage": { ...S, packageType: "research", filePath: "f", producerAgent: "a", consumers: ["b"], summary: "s" },
  "log.contextPackages": { ...S, groupId: "g", agentType: "b" },
  "log.markContextConsumed": { packageId: 1, agentType: "b" },
  "events.list": {},
  "events.latestId": undefined,
  "events.search": { filter: { type: "task.claimed", actor: "developer_1", sessionId: "s1", source: "api" }, limit: 10 },
  "events.types": undefined,
  "events.stream": { lastEventId: 0 },
  "admin.users": undefined,
  "admin.createUser": { email: "x@example.com", password: "correct horse battery staple", role: "lead" },
  "admin.setUserRole": { userId: "u", role: "lead" },
  "admin.tokens": undefined,
  "admin.createToken": { name: "t", role: "agent" },
  "admin.revokeToken": { id: 1 },
  "admin.configuration": undefined,
  "account.tokens": undefined,
  "account.createToken": { name: "my script" },
  "account.revokeToken": { id: 1 },
  "admin.modelConfig": undefined,
  "admin.workflow": undefined,
  "admin.webhooks": undefined,
  "admin.createWebhook": { url: "https://receiver.invalid/hook", events: ["task.blocked"] },
  "admin.removeWebhook": { id: 1 },
  "admin.testWebhook": { id: 1 },
  "admin.webhookDeliveries": { id: 1 },
  "analytics.overview": {},
  "setup.status": undefined,
  "setup.createFirstAdmin": { email: "first@example.com", password: "correct horse battery staple" },
};

/** Call a procedure by its dotted path with `input` (its valid input unless given). */
export function callPath(caller: Caller, path: string, input: unknown = VALID_INPUTS[path]): Promise<unknown> {
  const [router, procedure] = path.split(".") as [string, string];
  const fn = (caller as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>)[router]![procedure]!;
  return fn(input);
}

/**
 * Session s1 with a claimed task t1, a pending t3, a verified t4, a blocked t5 and a blocked t6 whose reset was requested, criterion c1, a plan, a context package,
 * token 1; goal 1 with validation step 1, branches 1 and 2, attempt 1 (finished, with a contract
 * to evaluate against) and attempt 2 (running).
 */
export async function world(db?: Db): Promise<Fixture> {
  const f = setup(db);
  const orchestrator = f.as("orchestrator");
  await orchestrator.session.create({ id: "s1" });
  await orchestrator.task.create({ ...T, title: "t1" });
  await orchestrator.task.create({ ...S, key: "t3", title: "t3" });
  await f.as("developer").task.claim(T);
  for (const key of ["t4", "t5", "t6"]) {
    await orchestrator.task.create({ ...S, key, title: key });
    await f.as("developer").task.claim({ ...S, key });
  }
  await f.as("verifier").task.verify({ ...S, key: "t4", proofpack: PASSED });
  await f.as("verifier").task.block({ ...S, key: "t5", failures: ["tests fail"] });
  await f.as("verifier").task.block({ ...S, key: "t6", failures: ["tests fail"] });
  await orchestrator.task.requestReset({ ...S, key: "t6", reason: "fixed" });
  await orchestrator.criteria.save({ ...S, criteria: [{ criterion: "c1" }] });
  await orchestrator.log.savePlan(VALID_INPUTS["log.savePlan"] as never);
  await orchestrator.log.saveContextPackage(VALID_INPUTS["log.saveContextPackage"] as never);
  await f.as("admin").admin.createToken({ name: "existing", role: "agent" });
  await f.as("admin").admin.createWebhook({ url: "https://receiver.invalid/existing", events: "all" });
  await orchestrator.goal.create({ ...S, goalText: "root goal" });
  await orchestrator.goal.setContract({ goalId: 1, contract: CONTRACT });
  await orchestrator.goal.addValidationStep({ goalId: 1, command: "npm test" });
  await orchestrator.goal.createBranch({ ...S, name: "main" });
  await orchestrator.goal.createBranch({ ...S, name: "feature/y", parentBranchId: 1 });
  await orchestrator.attempt.start({ goalId: 1, model: "m" });
  await orchestrator.attempt.finish({ attemptId: 1, status: "success", metrics: { cv_accuracy_mean: 0.8 } });
  await orchestrator.attempt.start({ goalId: 1, model: "m" });
  return f;
}

/** An independent in-memory copy of a database, so each case of a matrix starts from the same world. */
export function copyDb(db: Db): Db {
  const sqlite = new Database(db.$client.serialize());
  sqlite.pragma("foreign_keys = ON");
  return drizzle({ client: sqlite }) as Db;
}
