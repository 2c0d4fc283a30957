/**
 * A ledger written the way real callers write it — through the API's procedures, as agents,
 * verifiers, orchestrators and a lead — with rows in every table a session owns. The checker must
 * find nothing wrong in it; the purge must remove all of it.
 */
import type { Db } from "@/db/client";
import { ACTORS, PASSED, callerFor } from "@/test/support/api-helpers";

const as = (db: Db, name: keyof typeof ACTORS) => callerFor(db, ACTORS[name]);
const SHA = (n: number) => String(n).repeat(40).slice(0, 40);

/**
 * One session with tasks in every state (completed through a verify by a non-claimant, blocked and
 * reset, claimed), criteria claimed and verified, logs, tokens, state, skill outputs, decisions, a
 * plan, context packages, and a goal with its contract, branches, worktree, attempts, tool calls,
 * validation runs, trust score, evaluation and merge. `end` closes it (failed) afterwards.
 */
export async function writeFullSession(db: Db, id: string, options: { end?: boolean } = {}): Promise<void> {
  const orchestrator = as(db, "orchestrator");
  const developer = as(db, "developer");
  const verifier = as(db, "verifier");
  const lead = as(db, "lead");
  const S = { sessionId: id };
  await orchestrator.session.create({ id });
  for (const key of ["done", "reset", "claimed"]) await orchestrator.task.create({ ...S, key, title: `Task ${key}` });
  for (const key of ["done", "reset", "claimed"]) await developer.task.claim({ ...S, key, evidence: [`artifacts/${key}.txt`] });
  await verifier.task.verify({ ...S, key: "done", proofpack: PASSED });
  await orchestrator.task.complete({ ...S, key: "done" });
  await verifier.task.block({ ...S, key: "reset", failures: ["3 tests fail"] });
  await orchestrator.task.requestReset({ ...S, key: "reset", reason: "fixed the tests" });
  await lead.task.approveReset({ ...S, key: "reset", reason: "try again" });
  await orchestrator.task.report({ ...S, key: "reset", title: "Task reset, renamed" });

  await orchestrator.criteria.save({ ...S, criteria: [{ criterion: "Tests pass" }, { criterion: "Docs written", requiredForCompletion: false }] });
  await orchestrator.criteria.update({ ...S, criterion: "Tests pass", status: "met", actual: "42/42", evidence: "ci.log" });
  await verifier.criteria.verify({ ...S, criterion: "Tests pass", status: "met", evidence: "reran ci" });
  await lead.criteria.setRequired({ ...S, criterion: "Docs written", required: true });
  await orchestrator.completion.check(S);

  await developer.log.interaction({ ...S, agentType: "developer", content: "working on it" });
  await developer.log.reasoning({ ...S, agentType: "developer", phase: "understanding", content: "the task asks for X" });
  await orchestrator.log.event({ ...S, subtype: "pm_bazinga" });
  await developer.log.tokens({ ...S, agentType: "developer", tokens: 1200 });
  await orchestrator.log.batch({
    ...S,
    rows: [
      { kind: "interaction", agentType: "qa", content: "tested" },
      { kind: "tokens", agentType: "qa", tokens: 300 },
    ],
  });
  await orchestrator.log.saveState({ ...S, stateType: "pm", data: { iteration: 1 } });
  await orchestrator.log.saveSkillOutput({ ...S, skillName: "lint_check", data: { findings: 0 } });
  await orchestrator.log.decision({ ...S, decisionType: "spawn_agent", data: { agent: "qa" } });
  await orchestrator.log.savePlan({ ...S, originalPrompt: "p", planText: "t", phases: [{ phase: 1, name: "build" }] });
  await orchestrator.log.planProgress({ ...S, phase: 1, status: "completed" });
  const saved = (await orchestrator.log.saveContextPackage({
    ...S,
    packageType: "research",
    filePath: "research.md",
    producerAgent: "pm",
    consumers: ["developer"],
    summary: "notes",
  })) as { package: { id: number } };
  await developer.log.markContextConsumed({ packageId: saved.package.id, agentType: "developer" });

  const goal = await orchestrator.goal.create({ ...S, goalText: "Reach 80% accuracy" });
  const step = await orchestrator.goal.addValidationStep({ goalId: goal.id, command: "npm test" });
  await orchestrator.goal.setContract({
    goalId: goal.id,
    contract: { goalText: "Reach 80%", acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "acc", op: ">=", target: 0.8 }] },
  });
  const main = await orchestrator.goal.createBranch({ ...S, name: "main" });
  const branch = await orchestrator.goal.createBranch({ ...S, name: `goal-${goal.id}`, parentBranchId: main.id, createdByGoalId: goal.id });
  const worktree = await orchestrator.goal.createWorktree({ branchId: branch.id, path: `/tmp/${id}/wt` });
  const { attempt } = await orchestrator.attempt.start({ goalId: goal.id, model: "model-a", worktreeId: worktree.id, tools: [{ name: "bash" }] });
  await orchestrator.attempt.toolCalls({ attemptId: attempt.id, calls: [{ tool: "bash", input: "npm test", output: "ok" }] });
  await orchestrator.attempt.finish({ attemptId: attempt.id, status: "success", metrics: { acc: 0.85 }, endCommitSha: SHA(1) });
  await orchestrator.attempt.validationRun({ attemptId: attempt.id, validationStepId: step.id, exitCode: 0 });
  await verifier.attempt.trustScore({ attemptId: attempt.id, score: 90 });
  await verifier.goal.evaluate({ attemptId: attempt.id });
  await orchestrator.goal.recordMerge({ fromBranchId: branch.id, fromCommitSha: SHA(1), toBranchId: main.id, toCommitSha: SHA(2), resultCommitSha: SHA(3) });

  // A claimed task keeps the completion gate shut, so an ended session here is a failed one.
  if (options.end) await orchestrator.session.updateStatus({ ...S, status: "failed" });
}

/**
 * A session completed through the session service: in `enforce` on an accepted check (a task done
 * through a verify, its criterion met); in `observe` as its orchestrator said, on a rejected check.
 */
export async function writeCompletedSession(db: Db, id: string, enforcement: "enforce" | "observe"): Promise<void> {
  const orchestrator = as(db, "orchestrator");
  const S = { sessionId: id };
  await orchestrator.session.create({ id, enforcement });
  await orchestrator.criteria.save({ ...S, criteria: [{ criterion: "Tests pass" }] });
  if (enforcement === "enforce") {
    await orchestrator.task.create({ ...S, key: "done", title: "Task done" });
    await as(db, "developer").task.claim({ ...S, key: "done", evidence: ["ci.log"] });
    await as(db, "verifier").task.verify({ ...S, key: "done", proofpack: PASSED });
    await orchestrator.task.complete({ ...S, key: "done" });
    await orchestrator.criteria.update({ ...S, criterion: "Tests pass", status: "met", actual: "42/42", evidence: "ci.log" });
  }
  await orchestrator.session.updateStatus({ ...S, status: "completed" });
}
