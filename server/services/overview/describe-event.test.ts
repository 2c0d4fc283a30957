import { describe, expect, it } from "vitest";
import { EVENT_TYPES, TASK_MOVE_EVENTS } from "@/server/domain/event-types";
import { ADMIN_EVENT_TYPES, type DescribableEvent, describeEvent, isDescribed } from "./describe-event";

const ev = (type: string, entityId: string | null, data: Record<string, unknown> | null, actor = "developer_1"): DescribableEvent => ({
  type,
  actor,
  entity: "x",
  entityId,
  data,
});

/** Each type with the data its writer records (see the services), and the line the feed shows. */
const CASES: [type: string, event: DescribableEvent, line: string][] = [
  ["task.started", ev("task.started", "7", { key: "group_a", from: "pending", to: "in_progress", version: 2 }), "developer_1 started task group_a"],
  ["task.claimed", ev("task.claimed", "7", { key: "group_a", from: "in_progress", to: "claimed" }), "developer_1 claimed task group_a as done"],
  ["task.verified", ev("task.verified", "7", { key: "group_a" }, "qa_expert_1"), "qa_expert_1 verified task group_a"],
  ["task.blocked", ev("task.blocked", "7", { key: "group_a" }, "qa_expert_1"), "qa_expert_1 blocked task group_a"],
  ["task.completed", ev("task.completed", "7", { key: "group_a" }, "orchestrator"), "orchestrator completed task group_a"],
  ["task.reset_requested", ev("task.reset_requested", "7", { key: "group_a" }, "orchestrator"), "orchestrator requested a reset of blocked task group_a"],
  [
    "task.reset_approved",
    ev("task.reset_approved", "7", { key: "group_a" }, "lead@example.com"),
    "lead@example.com approved the reset of task group_a: back to pending",
  ],
  [
    "task.reset_declined",
    ev("task.reset_declined", "7", { key: "group_a" }, "lead@example.com"),
    "lead@example.com declined the reset request of task group_a: it stays blocked",
  ],
  [
    "session.created",
    ev("session.created", "bazinga_1", { enforcement: "observe", source: "bazinga" }, "orchestrator"),
    "orchestrator created session bazinga_1 (observe)",
  ],
  [
    "session.status_changed",
    ev("session.status_changed", "s1", { from: "active", to: "completed" }, "orchestrator"),
    "orchestrator changed session s1 from active to completed",
  ],
  [
    "session.enforcement_changed",
    ev("session.enforcement_changed", "s1", { from: "observe", to: "enforce", reason: "agents now verify" }, "lead@example.com"),
    "lead@example.com switched session s1 from observe to enforce: agents now verify",
  ],
  ["task.created", ev("task.created", "7", { key: "group_b", title: "JWT endpoints" }, "orchestrator"), 'orchestrator created task group_b "JWT endpoints"'],
  [
    "task.updated",
    ev("task.updated", "7", { key: "group_b", fields: ["assignee", "branch"], sourceStatus: null }, "orchestrator"),
    "orchestrator updated task group_b (assignee, branch)",
  ],
  [
    "task.reported",
    ev("task.reported", "7", { key: "group_b", from: "pending", to: "blocked", verification: null }, "orchestrator"),
    "orchestrator reported task group_b from pending to blocked",
  ],
  [
    "unverified_completion",
    ev("unverified_completion", "7", { key: "group_b", from: "in_progress", to: "completed", verification: "none" }, "orchestrator"),
    "orchestrator reported task group_b completed without verification",
  ],
  [
    "criteria.saved",
    ev("criteria.saved", "3", { criterion: "All tests passing", kind: "create", from: null, to: "pending" }, "project_manager"),
    'project_manager added success criterion "All tests passing"',
  ],
  [
    "criterion.updated",
    ev("criterion.updated", "3", { criterion: "Coverage >70%", kind: "claim", from: "pending", to: "met" }),
    'developer_1 updated criterion "Coverage >70%" from pending to met',
  ],
  [
    "criterion.verified",
    ev("criterion.verified", "3", { criterion: "Coverage >70%", kind: "verify", from: "met", to: "failed" }, "validator"),
    'validator verified criterion "Coverage >70%": found failed',
  ],
  [
    "completion.checked",
    ev("completion.checked", "12", { accepted: false, met: 2, total: 3 }, "orchestrator"),
    "orchestrator ran the completion check: rejected (2/3 required criteria met)",
  ],
  [
    "goal.created",
    ev("goal.created", "4", { goalText: "Reach 0.85 CV accuracy", source: "cli", parentGoalId: null }, "orchestrator"),
    'orchestrator created goal "Reach 0.85 CV accuracy"',
  ],
  [
    "goal.contract_set",
    ev("goal.contract_set", "4", { criteria: 2, maxGoalAttempts: 3, replaced: false }, "orchestrator"),
    "orchestrator set the contract of goal #4 (2 acceptance criteria, at most 3 attempts)",
  ],
  [
    "attempt.started",
    ev("attempt.started", "9", { goalId: 4, model: "opus", attemptType: "implementation", tools: [] }, "orchestrator"),
    "orchestrator started implementation attempt #9 on goal #4 with opus",
  ],
  ["attempt.finished", ev("attempt.finished", "9", { goalId: 4, status: "timeout" }, "orchestrator"), "orchestrator finished attempt #9: timeout"],
  ["attempt.trust_scored", ev("attempt.trust_scored", "9", { goalId: 4, score: 85 }, "verifier_1"), "verifier_1 gave attempt #9 a trust score of 85/100"],
  [
    "goal.gate_evaluated",
    ev("goal.gate_evaluated", "4", { verdict: "PARTIAL", attemptNumber: 2, attemptId: 9 }, "verifier_1"),
    "verifier_1 evaluated goal #4: PARTIAL (attempt 2)",
  ],
  [
    "logs.appended",
    ev("logs.appended", "55", { count: 1, firstId: 55, lastId: 55, logType: "reasoning", agentType: "developer", redacted: false }),
    "developer_1 logged 1 reasoning entry for developer",
  ],
  [
    "tokens.logged",
    ev("tokens.logged", "8", { count: 1, firstId: 8, lastId: 8, tokens: 15000, agentType: "developer" }),
    "developer_1 logged 15,000 tokens for developer",
  ],
  ["state.saved", ev("state.saved", "2", { stateType: "pm", groupId: "global", redacted: false }, "project_manager"), "project_manager saved pm state"],
  [
    "skill_output.saved",
    ev("skill_output.saved", "2", { skillName: "security_scan", agentType: "qa_expert", groupId: "group_a" }, "qa_expert"),
    "qa_expert saved security_scan output for group_a",
  ],
  ["decision.saved", ev("decision.saved", "2", { decisionType: "routing", iteration: 1 }, "orchestrator"), "orchestrator recorded a routing decision"],
  [
    "plan.saved",
    ev("plan.saved", "1", { created: true, totalPhases: 3, currentPhase: 1 }, "project_manager"),
    "project_manager saved a development plan (3 phases)",
  ],
  [
    "plan.progress_updated",
    ev("plan.progress_updated", "1", { phase: 2, from: "pending", to: "completed" }, "project_manager"),
    "project_manager moved plan phase 2 from pending to completed",
  ],
  [
    "context_package.saved",
    ev(
      "context_package.saved",
      "5",
      { packageType: "research", groupId: "group_a", priority: "high", consumers: ["developer", "qa_expert"] },
      "requirements_engineer",
    ),
    "requirements_engineer shared a research context package with developer, qa_expert",
  ],
  [
    "context_package.consumed",
    ev("context_package.consumed", "5", { agentType: "developer", iteration: 1, created: true }, "developer_1"),
    "developer read context package #5",
  ],
  [
    "error_pattern.saved",
    ev("error_pattern.saved", "ab12", { projectId: "calc", operation: "created", occurrences: 1 }, "developer_1"),
    "developer_1 saved an error pattern for calc",
  ],
  [
    "error_pattern.confidence_updated",
    ev("error_pattern.confidence_updated", "ab12", { projectId: "calc", outcome: "failure", from: 0.5, to: 0.3 }, "orchestrator"),
    "orchestrator marked an error pattern's fix as a false match",
  ],
  [
    "error_pattern.cleaned_up",
    ev("error_pattern.cleaned_up", null, { projectId: "calc", removed: [{ patternHash: "ab12" }] }, "orchestrator"),
    "orchestrator removed 1 expired error patterns",
  ],
  [
    "strategy.saved",
    ev("strategy.saved", "calc_implementation_1", { projectId: "calc", topic: "implementation", helpfulness: 1 }, "tech_lead"),
    "tech_lead saved a implementation strategy for calc",
  ],
  [
    "strategy.helpfulness_updated",
    ev("strategy.helpfulness_updated", "calc_implementation_1", { from: 1, to: 2 }, "orchestrator"),
    "orchestrator marked a strategy as helpful",
  ],
  [
    "strategy.extracted",
    ev("strategy.extracted", null, { groupId: "group_a", projectId: "calc", strategyIds: ["a", "b"] }, "orchestrator"),
    "orchestrator extracted 2 strategies from group group_a",
  ],
  [
    "consumption.saved",
    ev("consumption.saved", "f00d", { groupId: "group_a", agentType: "developer", iteration: 1, packageId: 5 }, "developer_1"),
    "developer read context package #5",
  ],
  [
    "goal.validation_step_added",
    ev("goal.validation_step_added", "6", { goalId: 4, order: 1, command: "npm test" }, "orchestrator"),
    'orchestrator added validation step "npm test" to goal #4',
  ],
  ["branch.created", ev("branch.created", "3", { name: "goal-4", parentBranchId: null, goalId: 4 }, "orchestrator"), "orchestrator created branch goal-4"],
  ["worktree.created", ev("worktree.created", "3", { branchId: 3, path: "/tmp/wt/goal-4" }, "orchestrator"), "orchestrator created worktree /tmp/wt/goal-4"],
  [
    "merge.recorded",
    ev("merge.recorded", "1", { from: "goal-4", to: "main", resultCommitSha: "abc123" }, "orchestrator"),
    "orchestrator merged goal-4 into main",
  ],
  [
    "attempt.tool_calls_recorded",
    ev("attempt.tool_calls_recorded", "9", { goalId: 4, attemptId: 9, count: 12, firstOrder: 1, lastOrder: 12 }, "orchestrator"),
    "orchestrator recorded 12 tool calls for attempt #9",
  ],
  [
    "attempt.validation_run_recorded",
    ev("attempt.validation_run_recorded", "9", { goalId: 4, validationStepId: 6, runId: 2, exitCode: 1, passed: false }, "orchestrator"),
    "orchestrator recorded a validation run for attempt #9: exit 1 (failed)",
  ],
  [
    "runtime.session_started",
    ev("runtime.session_started", "1", { runtime: "claude-code", runtimeSessionId: "5c4e3f0a", source: "resume", cwd: "/app" }, "claude"),
    "claude resumed claude-code session 5c4e3f0a",
  ],
  [
    "runtime.stop_held",
    ev("runtime.stop_held", "1", { block: 2, maxBlocks: 3, reasons: ["Only 0/1 criteria met"] }, "claude"),
    "claude tried to stop and was held (2 of 3): the completion gate rejects",
  ],
  [
    "runtime.stop_unverified",
    ev("runtime.stop_unverified", "1", { cause: "max_blocks", held: 3 }, "claude"),
    "claude stopped with the completion gate rejected (after the cap of held stops)",
  ],
  ["runtime.stop_released", ev("runtime.stop_released", "1", { afterHeld: 1 }, "claude"), "claude stopped after 1 held stop"],
  [
    "admin.user_created",
    ev("admin.user_created", "u1", { email: "lead@example.com", role: "lead" }, "admin@example.com"),
    "admin@example.com added user lead@example.com as lead",
  ],
  [
    "admin.user_role_changed",
    ev("admin.user_role_changed", "u1", { from: "viewer", to: "lead" }, "admin@example.com"),
    "admin@example.com changed a user's role from viewer to lead",
  ],
  [
    "admin.token_created",
    ev("admin.token_created", "3", { name: "developer_1", role: "agent" }, "admin@example.com"),
    "admin@example.com created API token developer_1 (agent)",
  ],
  ["admin.token_revoked", ev("admin.token_revoked", "3", { name: "developer_1" }, "admin@example.com"), "admin@example.com revoked API token developer_1"],
  [
    "account.token_created",
    ev("account.token_created", "4", { name: "release script" }, "lead@example.com"),
    "lead@example.com created personal API token release script",
  ],
  [
    "account.token_revoked",
    ev("account.token_revoked", "4", { name: "release script" }, "lead@example.com"),
    "lead@example.com revoked personal API token release script",
  ],
  [
    "admin.webhook_created",
    ev("admin.webhook_created", "2", { host: "hooks.example.com", events: "all" }, "admin@example.com"),
    "admin@example.com added webhook #2 to hooks.example.com",
  ],
  [
    "admin.webhook_removed",
    ev("admin.webhook_removed", "2", { url: "https://hooks.example.com/pg" }, "admin@example.com"),
    "admin@example.com removed webhook #2 (hooks.example.com)",
  ],
  ["admin.webhook_tested", ev("admin.webhook_tested", "2", { url: "https://hooks.example.com/pg" }, "operator"), "operator sent a test delivery to webhook #2"],
];

describe("describeEvent", () => {
  it("names an old webhook row's host alone, never the URL it still holds (issue 30)", () => {
    const old = ev("admin.webhook_created", "2", { url: "https://hooks.slack.com/services/T000/B000/SECRETSECRET", events: "all" }, "admin@example.com");
    expect(describeEvent(old)).toBe("admin@example.com added webhook #2 to hooks.slack.com");
  });

  it("has a case in this test for every event type the ledger writes (event-types.ts and the admin services)", () => {
    const all = [...Object.values(TASK_MOVE_EVENTS), ...Object.values(EVENT_TYPES), ...ADMIN_EVENT_TYPES].sort();
    expect(CASES.map(([type]) => type).sort()).toEqual(all);
    for (const type of all) expect(isDescribed(type), type).toBe(true);
  });

  it.each(CASES)("describes %s", (_type, event, line) => {
    expect(describeEvent(event)).toBe(line);
  });

  it("names the personal token a person acted through, and whose token an admin revoked", () => {
    const viaToken = { ...ev("task.reset_approved", "7", { key: "group_a" }, "lead@example.com"), via: "token:12 release script" };
    expect(describeEvent(viaToken)).toBe("lead@example.com (via token release script) approved the reset of task group_a: back to pending");
    expect(describeEvent(ev("admin.token_revoked", "4", { name: "laptop", owner: "lead@example.com" }, "admin@example.com"))).toBe(
      "admin@example.com revoked API token laptop of lead@example.com",
    );
  });

  it("words the variants a writer records", () => {
    expect(describeEvent(ev("completion.checked", "1", { accepted: true, met: 3, total: 3 }, "orchestrator"))).toBe(
      "orchestrator ran the completion check: accepted (3/3 required criteria met)",
    );
    expect(describeEvent(ev("criterion.updated", "3", { criterion: "Ships", kind: "required", from: null, to: null }, "lead@example.com"))).toBe(
      'lead@example.com changed whether criterion "Ships" is required',
    );
    expect(describeEvent(ev("criterion.updated", "3", { criterion: "Ships", kind: "import", from: null, to: "met" }, "importer"))).toBe(
      'importer imported criterion "Ships" to met',
    );
    expect(describeEvent(ev("goal.created", "5", { goalText: "Write tests", source: "breakdown", parentGoalId: 4 }))).toBe(
      'developer_1 created a sub-goal of goal #4 "Write tests"',
    );
    expect(describeEvent(ev("goal.contract_set", "4", { criteria: 1, maxGoalAttempts: 1, replaced: true }))).toBe(
      "developer_1 replaced the contract of goal #4 (1 acceptance criterion, at most 1 attempt)",
    );
    expect(describeEvent(ev("plan.saved", "1", { created: false, totalPhases: 1 }))).toBe("developer_1 revised the development plan (1 phase)");
    expect(describeEvent(ev("attempt.validation_run_recorded", "9", { exitCode: 0 }))).toBe(
      "developer_1 recorded a validation run for attempt #9: exit 0 (passed)",
    );
    // A batch: logs first, with token rows carried along; or tokens alone.
    expect(describeEvent(ev("logs.appended", "s1", { count: 250, firstId: 1, lastId: 250, redacted: 0, duplicates: 0, batch: true }))).toBe(
      "developer_1 logged 250 entries",
    );
    expect(describeEvent(ev("tokens.logged", "s1", { count: 4, firstId: 1, lastId: 4, total: 52000, batch: true }))).toBe(
      "developer_1 logged 52,000 tokens in 4 rows",
    );
  });

  it("words the demo generator's own payloads", () => {
    expect(describeEvent(ev("criterion.verified", "3", { criterion: "Coverage >70%", claimed: "met", found: "met" }, "validator"))).toBe(
      'validator verified criterion "Coverage >70%": found met',
    );
    expect(describeEvent(ev("state.saved", "s1", { types: ["pm", "orchestrator"] }, "orchestrator"))).toBe("orchestrator saved pm and orchestrator state");
    expect(describeEvent(ev("tokens.logged", "s1", { count: 12 }, "orchestrator"))).toBe("orchestrator logged 12 token usage rows");
    expect(describeEvent(ev("goal.contract_set", "4", { criteria: 3 }, "orchestrator"))).toBe(
      "orchestrator set the contract of goal #4 (3 acceptance criteria)",
    );
  });

  it("never prints undefined or null when a payload lacks fields", () => {
    for (const [type] of CASES) {
      for (const data of [null, {}]) {
        const line = describeEvent(ev(type, null, data));
        expect(line, type).not.toMatch(/undefined|null|NaN|\[object/);
        expect(line.startsWith("developer_1 "), type).toBe(true);
      }
    }
  });

  it("clips long texts and names an unknown type rather than hiding it", () => {
    const long = "x".repeat(200);
    expect(describeEvent(ev("goal.created", "1", { goalText: long }))).toBe(`developer_1 created goal "${"x".repeat(79)}…"`);
    expect(describeEvent({ type: "importer.finished", actor: "importer", entity: "session", entityId: "s9", data: { rows: 3 } })).toBe(
      "importer: importer.finished (session s9)",
    );
    expect(isDescribed("importer.finished")).toBe(false);
  });
});
