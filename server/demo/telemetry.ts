import {
  agentMarkers,
  configuration,
  contextPackageConsumers,
  contextPackages,
  decisions,
  developmentPlans,
  modelConfig,
  orchestrationLogs,
  skillOutputs,
  stateSnapshots,
  tokenUsage,
  workflowSpecialRules,
  workflowTransitions,
} from "@/db/schema";
import type { CriterionState } from "@/server/domain/criteria";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { redactSecrets } from "@/server/domain/redact";
import type { BulkWriter } from "./bulk";
import { type SessionContext, demoActor, emit, tick } from "./context";
import { AGENT_TYPES, INTERACTIONS, MODELS, REASONING } from "./vocabulary";

const PHASES = ["understanding", "approach", "decisions", "risks", "blockers", "pivot", "completion"] as const;
const ORCHESTRATOR = demoActor("orchestrator", "orchestrator");

/**
 * Orchestration logs (interactions, reasoning, events), tokens, state snapshots, skill outputs,
 * decisions, a development plan and context packages — the telemetry of 001. Log text goes
 * through the same redaction every interface applies, so demo secrets are stored redacted.
 */
export function generateTelemetry(ctx: SessionContext, groups: string[], criteria: CriterionState[], logCount: number): void {
  const { r, w } = ctx;
  const firstLogId = logLoop(ctx, groups, logCount);
  emit(ctx, EVENT_TYPES.logsAppended, "session", ctx.sessionId, ORCHESTRATOR, { count: logCount, firstId: firstLogId });

  const tokenRows = r.around(12, 3);
  for (let i = 0; i < tokenRows; i++) {
    const agentType = r.pick(AGENT_TYPES);
    w.insert(tokenUsage, {
      sessionId: ctx.sessionId,
      agentType,
      agentId: `${agentType}_${r.int(1, 2)}`,
      tokensEstimated: r.int(800, 40_000),
      model: r.pick(MODELS),
      timestamp: tick(ctx, 0, 10),
    });
  }
  emit(ctx, EVENT_TYPES.tokensLogged, "session", ctx.sessionId, ORCHESTRATOR, { count: tokenRows });

  const pmState = {
    mode: "parallel",
    iteration: r.int(1, 6),
    task_groups: groups,
    success_criteria: criteria.map((c) => ({ criterion: c.criterion, status: c.status, required_for_completion: c.requiredForCompletion })),
  };
  w.insert(stateSnapshots, { sessionId: ctx.sessionId, stateType: "pm", stateData: JSON.stringify(pmState), timestamp: tick(ctx) });
  w.insert(stateSnapshots, {
    sessionId: ctx.sessionId,
    stateType: "orchestrator",
    stateData: JSON.stringify({ phase: "development", active_groups: groups.slice(0, 2) }),
    timestamp: tick(ctx),
  });
  emit(ctx, EVENT_TYPES.stateSaved, "session", ctx.sessionId, ORCHESTRATOR, { types: ["pm", "orchestrator"] });

  for (const skill of ["security_scan", "test_coverage", "lint_check"].slice(0, r.int(1, 3))) {
    const outputData = JSON.stringify(skill === "test_coverage" ? { coverage: 60 + r.int(0, 35) } : { findings: r.int(0, 3) });
    const groupId = r.pick(groups);
    const skillId = w.insert(skillOutputs, { sessionId: ctx.sessionId, skillName: skill, outputData, agentType: "qa_expert", groupId, timestamp: tick(ctx) });
    emit(ctx, EVENT_TYPES.skillOutputSaved, "skill_output", skillId, ORCHESTRATOR, { skillName: skill, agentType: "qa_expert", groupId, redacted: false });
  }
  for (let i = 0; i < r.int(1, 3); i++) {
    const decisionType = r.pick(["spawn_agent", "escalate_model", "route_to_qa"]);
    const decisionId = w.insert(decisions, {
      sessionId: ctx.sessionId,
      iteration: i + 1,
      decisionType,
      decisionData: JSON.stringify({ group: r.pick(groups), reason: "revision count reached threshold" }),
      timestamp: tick(ctx),
    });
    emit(ctx, EVENT_TYPES.decisionSaved, "decision", decisionId, ORCHESTRATOR, { decisionType, iteration: i + 1, redacted: false });
  }
  if (r.chance(0.3)) {
    const planId = w.insert(developmentPlans, {
      sessionId: ctx.sessionId,
      originalPrompt: "Implement the requested feature",
      planText: groups.map((g, i) => `${i + 1}. ${g}`).join("\n"),
      phases: JSON.stringify(groups.map((g) => ({ group: g }))),
      currentPhase: 1,
      totalPhases: groups.length,
      createdAt: new Date(ctx.clock),
      updatedAt: new Date(ctx.clock),
    });
    emit(ctx, EVENT_TYPES.planSaved, "development_plan", planId, ORCHESTRATOR, { created: true, totalPhases: groups.length, currentPhase: 1, redacted: false });
  }
  const packageId = w.insert(contextPackages, {
    sessionId: ctx.sessionId,
    groupId: r.pick(groups),
    packageType: r.pick(["research", "failures", "decisions", "handoff"] as const),
    filePath: `bazinga/artifacts/${ctx.sessionId}/context/research.md`,
    producerAgent: "requirements_engineer",
    priority: r.pick(["low", "medium", "high", "critical"] as const),
    summary: "Endpoints, scopes and security requirements",
    sizeBytes: r.int(500, 9000),
    createdAt: tick(ctx),
  });
  for (const agentType of ["developer", "qa_expert"]) {
    w.insert(contextPackageConsumers, { packageId, agentType, consumedAt: r.chance(0.6) ? tick(ctx) : null });
  }
  emit(ctx, EVENT_TYPES.contextPackageSaved, "context_package", packageId, ORCHESTRATOR, { consumers: ["developer", "qa_expert"], redacted: false });
}

function logLoop(ctx: SessionContext, groups: string[], count: number): number | null {
  const { r, w } = ctx;
  let firstId: number | null = null;
  for (let i = 0; i < count; i++) {
    const kind = r.weighted([
      ["interaction", 6],
      ["reasoning", 3],
      ["event", 1],
    ] as const);
    const agentType = r.pick(AGENT_TYPES);
    const group = r.pick(groups);
    const base = {
      sessionId: ctx.sessionId,
      timestamp: tick(ctx, 0, 3),
      iteration: 1 + Math.floor(i / 20),
      agentType,
      agentId: `${agentType}_1`,
      groupId: group,
    };
    let id: number;
    if (kind === "interaction") {
      const raw = r
        .pick(INTERACTIONS)
        .replace("{group}", group)
        .replace("{branch}", "main")
        .replace("{n}", String(groups.length))
        .replace("{secret}", `${r.int(1e8, 9e8)}abcdefghijklmnop`);
      const { text, redacted } = redactSecrets(raw);
      id = w.insert(orchestrationLogs, { ...base, content: text, redacted, logType: "interaction" });
    } else if (kind === "reasoning") {
      const { text, redacted } = redactSecrets(r.pick(REASONING));
      id = w.insert(orchestrationLogs, {
        ...base,
        content: text,
        redacted,
        logType: "reasoning",
        reasoningPhase: r.pick(PHASES),
        confidenceLevel: r.pick(["high", "medium", "low"] as const),
        referencesJson: [`src/${group}/index.ts`, "docs/requirements.md"],
      });
    } else {
      const subtype = r.pick(["pm_bazinga", "validator_verdict", "tl_review", "qa_result"]);
      const payload = subtype === "validator_verdict" ? { verdict: r.pick(["ACCEPT", "REJECT"]) } : { status: "sent" };
      id = w.insert(orchestrationLogs, {
        ...base,
        content: `${subtype} event`,
        logType: "event",
        eventSubtype: subtype,
        eventPayload: JSON.stringify(payload),
      });
    }
    firstId ??= id;
  }
  return firstId;
}

/** Server-wide tables BAZINGA seeds (model assignments, workflow routing): written once per database. */
export function generateGlobalConfig(w: BulkWriter, existing: (table: string) => number, now: Date): void {
  if (existing("model_config") === 0) {
    const models: [string, string, string][] = [
      ["developer", "sonnet", "Balanced capability for implementation tasks"],
      ["senior_software_engineer", "opus", "Complex failures requiring deep reasoning"],
      ["qa_expert", "sonnet", "Test generation and validation"],
      ["tech_lead", "opus", "Architectural decisions - non-negotiable"],
      ["project_manager", "opus", "Strategic planning - non-negotiable"],
      ["investigator", "opus", "Root cause analysis"],
      ["validator", "sonnet", "BAZINGA verification"],
    ];
    for (const [agentRole, model, rationale] of models) w.insert(modelConfig, { agentRole, model, rationale, updatedAt: now });
  }
  if (existing("configuration") === 0) {
    w.insert(configuration, { key: "testing_mode", value: JSON.stringify({ framework: "full", coverage_threshold: 70 }), updatedAt: now });
    w.insert(configuration, { key: "skills_config", value: JSON.stringify({ security_scan: "mandatory", test_coverage: "mandatory" }), updatedAt: now });
  }
  if (existing("workflow_transitions") === 0) {
    const rows: [string, string, string | null, string][] = [
      ["developer", "READY_FOR_QA", "qa_expert", "spawn"],
      ["qa_expert", "PASS", "tech_lead", "spawn"],
      ["qa_expert", "FAIL", "developer", "respawn"],
      ["tech_lead", "APPROVED", "developer", "spawn"],
      ["tech_lead", "CHANGES_REQUESTED", "developer", "respawn"],
      ["pm", "BAZINGA", null, "validate_then_end"],
    ];
    for (const [currentAgent, responseStatus, nextAgent, action] of rows)
      w.insert(workflowTransitions, { currentAgent, responseStatus, nextAgent, action, escalationCheck: action === "respawn" });
  }
  if (existing("agent_markers") === 0) {
    w.insert(agentMarkers, {
      agentType: "developer",
      requiredMarkers: JSON.stringify(["NO DELEGATION", "READY_FOR_QA"]),
      workflowMarkers: JSON.stringify(["BLOCKED"]),
    });
    w.insert(agentMarkers, { agentType: "qa_expert", requiredMarkers: JSON.stringify(["PASS", "FAIL"]), workflowMarkers: null });
  }
  if (existing("workflow_special_rules") === 0) {
    w.insert(workflowSpecialRules, {
      ruleName: "escalation_after_failures",
      description: "Escalate to a senior engineer after repeated failures",
      config: JSON.stringify({ threshold: 2, escalation_agent: "senior_software_engineer" }),
    });
    w.insert(workflowSpecialRules, {
      ruleName: "security_sensitive",
      description: "Force senior engineer and mandatory tech lead review",
      config: JSON.stringify({ force_tier: "Senior Software Engineer" }),
    });
  }
}
