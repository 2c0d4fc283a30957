/**
 * A small ledger built through the API at chosen times, whose analytics are worked out by hand in
 * overview.test.ts. Times are set with vitest's fake Date; every service stamps rows with it.
 *
 * | session | source        | started        | models                  | tasks (claimant: claim → judgment, minutes)                                   |
 * |---------|---------------|----------------|-------------------------|--------------------------------------------------------------------------------|
 * | s1      | api, enforce  | Mon 2 Mar 2026 | developer: model-a      | t1 dev1 10→25 verify; t2 dev2 12→42 block, reset 102, 110→150 verify; t3 dev1 20→30 block (open); t4 sse1 60→80 verify |
 * | s2      | bazinga, obs. | Tue 3 Mar      | developer: model-b      | u1 dev1 10→70 block, reset 100, reported completed 120; u2 reported completed 5; u3 reported claimed 10, blocked 40 (open) |
 * | s3      | shots-on-goal | Tue 10 Mar     | developer: model-a      | v1 dev1 10→15 verify; v2 dev2 20→30 block (open)                                |
 * | s4      | api           | Tue 10 Mar     | —                       | none (its one criterion met: the only accepted check)                          |
 *
 * s1 and s2 are created inside Claude Code sessions (RUNTIME_S1, RUNTIME_S2), whose Stop hooks run
 * (as `claude`) after each session's completion check, while the gate rejects: s1's stops at
 * minutes 210 and 211 of Monday are held and the third, at 212, goes through unverified after the
 * cap of 2; s2's stop at minute 210 of Tuesday is held and the next, at 211, goes through after the cap of 1.
 */
import { vi } from "vitest";
import { ACTORS, BLOCKED, type Fixture, PASSED, callerFor, tokenActor } from "@/test/support/api-helpers";
import { handleClaudeCodeHook } from "@/server/services/runtime/hook";
import { sessionStart, stop } from "@/server/services/runtime/test-payloads";

export const DAY_MS = 86_400_000;
/** Monday 2 March 2026, 00:00 UTC. */
export const MONDAY = Date.UTC(2026, 2, 2);
export const MINUTE = 60_000;

/** Epoch ms of `minute` minutes into day `day` (0 = Monday 2 March 2026). */
export function at(day: number, minute: number): number {
  return MONDAY + day * DAY_MS + minute * MINUTE;
}

export const RUNTIME_S1 = "11111111-2222-4333-8444-555555555501";
export const RUNTIME_S2 = "11111111-2222-4333-8444-555555555502";
/** Who runs the runtime's hooks in the scenario. */
/** The agent's hooks report with the orchestrator's token, under the runtime's label: one principal owns its runtime sessions. */
export const HOOK_ACTOR = { ...ACTORS.orchestrator, label: "claude" };

export const SENIOR = tokenActor(7, "agent", "senior_software_engineer_1");

export async function buildScenario(f: Fixture): Promise<void> {
  const time = (day: number, minute: number) => vi.setSystemTime(at(day, minute));
  const orch = f.as("orchestrator");
  const dev1 = f.as("developer");
  const dev2 = f.as("developer2");
  const ver = f.as("verifier");
  const ver2 = f.as("verifier2");
  const lead = f.as("lead");
  const block = { proofpack: BLOCKED, failures: ["component tests - 3 failing"] };

  const hook = { db: f.db, actor: HOOK_ACTOR };
  const inRuntime = (externalId: string) => callerFor(f.db, ACTORS.orchestrator, { runtimeSession: { runtime: "claude-code", externalId } });

  // s1: api, enforce, Monday.
  time(0, 0);
  await handleClaudeCodeHook(hook, sessionStart("startup", RUNTIME_S1));
  await inRuntime(RUNTIME_S1).session.create({ id: "s1", models: { developer: "model-a" } });
  await f.as("developer").criteria.save({
    sessionId: "s1",
    criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }, { criterion: "Docs updated", requiredForCompletion: false }],
  });
  for (const key of ["t1", "t2", "t3", "t4"]) await orch.task.create({ sessionId: "s1", key, title: key });
  const s1 = (key: string) => ({ sessionId: "s1", key });
  time(0, 1);
  await dev1.task.start(s1("t1"));
  time(0, 2);
  await dev2.task.start(s1("t2"));
  time(0, 3);
  await dev1.task.start(s1("t3"));
  time(0, 10);
  await dev1.task.claim(s1("t1"));
  time(0, 12);
  await dev2.task.claim(s1("t2"));
  time(0, 20);
  await dev1.task.claim(s1("t3"));
  time(0, 25);
  await ver.task.verify({ ...s1("t1"), proofpack: PASSED });
  time(0, 30);
  await orch.task.complete(s1("t1"));
  await ver2.task.block({ ...s1("t3"), ...block });
  time(0, 42);
  await ver.task.block({ ...s1("t2"), ...block });
  time(0, 50);
  await orch.task.requestReset({ ...s1("t2"), reason: "fixed the failing tests" });
  time(0, 55);
  await orch.task.start(s1("t4"));
  time(0, 60);
  await f.by(SENIOR).task.claim(s1("t4"));
  time(0, 80);
  await ver.task.verify({ ...s1("t4"), proofpack: PASSED });
  time(0, 102);
  await lead.task.approveReset({ ...s1("t2"), reason: "retry" });
  time(0, 103);
  await dev2.task.start(s1("t2"));
  time(0, 110);
  await dev2.task.claim(s1("t2"));
  time(0, 150);
  await ver.task.verify({ ...s1("t2"), proofpack: PASSED });
  time(0, 160);
  await dev1.criteria.update({ sessionId: "s1", criterion: "All tests passing", status: "met" });
  await dev1.criteria.update({ sessionId: "s1", criterion: "Coverage >70%", status: "failed" });
  await dev1.criteria.update({ sessionId: "s1", criterion: "Docs updated", status: "met" });
  await dev1.log.tokens({ sessionId: "s1", agentType: "developer", agentId: "developer_1", tokens: 1000, model: "model-a" });
  await orch.log.tokens({ sessionId: "s1", agentType: "pm", agentId: "pm_1", tokens: 500 });
  time(0, 200);
  await orch.completion.check({ sessionId: "s1" });
  time(0, 210);
  await handleClaudeCodeHook(hook, stop(false, RUNTIME_S1), { maxBlocks: 2 });
  time(0, 211);
  await handleClaudeCodeHook(hook, stop(true, RUNTIME_S1), { maxBlocks: 2 });
  time(0, 212);
  await handleClaudeCodeHook(hook, stop(true, RUNTIME_S1), { maxBlocks: 2 });

  // s2: bazinga, observe, Tuesday.
  time(1, 0);
  await handleClaudeCodeHook(hook, sessionStart("startup", RUNTIME_S2));
  await inRuntime(RUNTIME_S2).session.create({ id: "s2", source: "bazinga", enforcement: "observe", models: { developer: "model-b" } });
  await dev1.criteria.save({ sessionId: "s2", criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }] });
  await orch.task.create({ sessionId: "s2", key: "u1", title: "u1", assignee: "developer_1" });
  await orch.task.create({ sessionId: "s2", key: "u2", title: "u2", assignee: "developer_2" });
  await orch.task.create({ sessionId: "s2", key: "u3", title: "u3" });
  const s2 = (key: string) => ({ sessionId: "s2", key });
  time(1, 1);
  await dev1.task.start(s2("u1"));
  time(1, 5);
  await orch.task.report({ ...s2("u2"), status: "completed" });
  time(1, 10);
  await dev1.task.claim(s2("u1"));
  await orch.task.report({ ...s2("u3"), status: "claimed" });
  time(1, 40);
  await ver.task.block({ ...s2("u3"), ...block });
  time(1, 70);
  await ver.task.block({ ...s2("u1"), ...block });
  time(1, 100);
  await lead.task.approveReset({ ...s2("u1"), reason: "retry" });
  time(1, 120);
  await orch.task.report({ ...s2("u1"), status: "completed" });
  time(1, 130);
  await dev1.criteria.update({ sessionId: "s2", criterion: "All tests passing", status: "met" });
  await ver.criteria.verify({ sessionId: "s2", criterion: "All tests passing", status: "failed", actual: "2 failing" });
  await dev1.criteria.update({ sessionId: "s2", criterion: "Coverage >70%", status: "blocked" });
  await dev2.log.tokens({ sessionId: "s2", agentType: "developer", agentId: "developer_2", tokens: 2000, model: "model-b" });
  const g3 = await orch.goal.create({ sessionId: "s2", goalText: "G3" });
  const g4 = await orch.goal.create({ sessionId: "s2", goalText: "G4" });
  await attempt(f, g3.id, "model-y", "success");
  await attempt(f, g4.id, "model-x", null);
  time(1, 200);
  await orch.completion.check({ sessionId: "s2" });
  time(1, 210);
  await handleClaudeCodeHook(hook, stop(false, RUNTIME_S2), { maxBlocks: 1 });
  time(1, 211);
  await handleClaudeCodeHook(hook, stop(true, RUNTIME_S2), { maxBlocks: 1 });

  // s3: shots-on-goal, the next Tuesday; s4: api, the same day.
  time(8, 0);
  await orch.session.create({ id: "s3", source: "shots-on-goal", models: { developer: "model-a" } });
  await dev1.criteria.save({ sessionId: "s3", criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }, { criterion: "Lint clean" }] });
  await orch.task.create({ sessionId: "s3", key: "v1", title: "v1" });
  await orch.task.create({ sessionId: "s3", key: "v2", title: "v2" });
  const s3 = (key: string) => ({ sessionId: "s3", key });
  time(8, 1);
  await dev1.task.start(s3("v1"));
  await dev2.task.start(s3("v2"));
  time(8, 10);
  await dev1.task.claim(s3("v1"));
  time(8, 15);
  await ver.task.verify({ ...s3("v1"), proofpack: PASSED });
  await orch.task.complete(s3("v1"));
  time(8, 20);
  await dev2.task.claim(s3("v2"));
  time(8, 30);
  await ver.task.block({ ...s3("v2"), ...block });
  for (const [criterion, status] of [
    ["All tests passing", "met"],
    ["Coverage >70%", "failed"],
    ["Lint clean", "met"],
  ] as const) {
    await dev1.criteria.update({ sessionId: "s3", criterion, status });
  }
  await f
    .by(tokenActor(8, "agent", "qa_expert_1"))
    .log.tokens({ sessionId: "s3", agentType: "qa_expert", agentId: "qa_expert_1", tokens: 300, model: "model-a" });
  await dev1.log.tokens({ sessionId: "s3", agentType: "developer", agentId: "developer_1", tokens: 700, model: "model-a" });
  const g1 = await orch.goal.create({ sessionId: "s3", goalText: "G1" });
  const g2 = await orch.goal.create({ sessionId: "s3", goalText: "G2" });
  await attempt(f, g1.id, "model-x", "error");
  await attempt(f, g1.id, "model-y", "success");
  await attempt(f, g2.id, "model-x", "timeout");
  await attempt(f, g2.id, "model-x", "tool_limit");
  await attempt(f, g2.id, "model-y", "completed");
  const breakdown = await orch.attempt.start({ goalId: g2.id, attemptType: "breakdown", model: "model-x" });
  await orch.attempt.finish({ attemptId: breakdown.attempt.id, status: "completed" });
  time(8, 200);
  await orch.completion.check({ sessionId: "s3" });

  time(8, 300);
  await orch.session.create({ id: "s4" });
  await dev1.criteria.save({ sessionId: "s4", criteria: [{ criterion: "All tests passing", status: "met" }] });
  await lead.completion.check({ sessionId: "s4" });
}

async function attempt(f: Fixture, goalId: number, model: string, status: "success" | "error" | "timeout" | "tool_limit" | "completed" | null): Promise<void> {
  const started = await f.as("orchestrator").attempt.start({ goalId, model });
  if (status !== null) await f.as("orchestrator").attempt.finish({ attemptId: started.attempt.id, status });
}
