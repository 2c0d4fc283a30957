import { describe, expect, it } from "vitest";
import { ACTORS, type Fixture, expectForbidden, refusal, setup } from "@/test/support/api-helpers";
import { RoleForbiddenError } from "@/server/domain/errors";
import { readConfiguration, readModelConfig, readWorkflow } from "./config";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";
import { runLikeSqlite, tableCountsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

const T = Date.parse("2026-03-01T10:00:00.000Z");

/** Rows written the way BAZINGA (or an admin with sqlite3) writes them, out of display order. */
async function seeded(engine: Engine): Promise<Fixture> {
  const f = setup(await freshLedger(engine));
  const run = (text: string, ...params: unknown[]) => runLikeSqlite(f.db, text, ...params);
  await run(
    "insert into configuration (key, value, updated_at) values (?, ?, ?)",
    "testing_mode",
    JSON.stringify({ framework: "full", coverage_threshold: 70 }),
    T,
  );
  await run("insert into configuration (key, value, updated_at) values (?, ?, ?)", "banner", "plain text, not JSON", T + 1000);
  await run("insert into model_config (agent_role, model, rationale, updated_at) values (?, ?, ?, ?)", "tech_lead", "opus", "Architectural decisions", T);
  await run("insert into model_config (agent_role, model, rationale, updated_at) values (?, ?, ?, ?)", "developer", "sonnet", null, T);
  await run(
    "insert into workflow_transitions (current_agent, response_status, next_agent, action, escalation_check, max_parallel) values (?, ?, ?, ?, ?, ?)",
    "qa_expert",
    "PASS",
    "tech_lead",
    "spawn",
    0,
    null,
  );
  await run(
    "insert into workflow_transitions (current_agent, response_status, next_agent, action, escalation_check, max_parallel) values (?, ?, ?, ?, ?, ?)",
    "qa_expert",
    "FAIL",
    "developer",
    "respawn",
    1,
    null,
  );
  await run(
    "insert into workflow_transitions (current_agent, response_status, next_agent, action, escalation_check, max_parallel) values (?, ?, ?, ?, ?, ?)",
    "developer",
    "READY_FOR_QA",
    "qa_expert",
    "spawn",
    0,
    4,
  );
  await run("insert into agent_markers (agent_type, required_markers, workflow_markers) values (?, ?, ?)", "qa_expert", JSON.stringify(["PASS", "FAIL"]), null);
  await run(
    "insert into agent_markers (agent_type, required_markers, workflow_markers) values (?, ?, ?)",
    "developer",
    "READY_FOR_QA",
    JSON.stringify(["BLOCKED"]),
  );
  await run(
    "insert into workflow_special_rules (rule_name, description, config) values (?, ?, ?)",
    "security_sensitive",
    null,
    JSON.stringify({ force_tier: "Senior Software Engineer" }),
  );
  await run(
    "insert into workflow_special_rules (rule_name, description, config) values (?, ?, ?)",
    "escalation_after_failures",
    "Escalate after repeated failures",
    JSON.stringify({ threshold: 2 }),
  );
  return f;
}

describeEngines("admin config", (engine) => {
  describe("admin configuration reads", () => {
    it("lists the configuration by key, with JSON values parsed beside the stored text", async () => {
      const f = await seeded(engine);
      expect(await f.as("admin").admin.configuration()).toEqual([
        { key: "banner", value: "plain text, not JSON", parsed: "plain text, not JSON", updatedAt: new Date(T + 1000) },
        {
          key: "testing_mode",
          value: '{"framework":"full","coverage_threshold":70}',
          parsed: { framework: "full", coverage_threshold: 70 },
          updatedAt: new Date(T),
        },
      ]);
    });

    it("lists the model configuration by agent role", async () => {
      const f = await seeded(engine);
      expect(await f.as("admin").admin.modelConfig()).toEqual([
        { agentRole: "developer", model: "sonnet", rationale: null, updatedAt: new Date(T) },
        { agentRole: "tech_lead", model: "opus", rationale: "Architectural decisions", updatedAt: new Date(T) },
      ]);
    });

    it("lists the workflow tables: transitions by agent then status, markers as lists, rules with parsed config", async () => {
      const f = await seeded(engine);
      const workflow = await f.as("admin").admin.workflow();
      expect(workflow.transitions.map((t) => [t.currentAgent, t.responseStatus, t.nextAgent, t.action, t.escalationCheck, t.maxParallel])).toEqual([
        ["developer", "READY_FOR_QA", "qa_expert", "spawn", false, 4],
        ["qa_expert", "FAIL", "developer", "respawn", true, null],
        ["qa_expert", "PASS", "tech_lead", "spawn", false, null],
      ]);
      expect(workflow.agentMarkers.map(({ agentType, requiredMarkers, workflowMarkers }) => ({ agentType, requiredMarkers, workflowMarkers }))).toEqual([
        { agentType: "developer", requiredMarkers: ["READY_FOR_QA"], workflowMarkers: ["BLOCKED"] },
        { agentType: "qa_expert", requiredMarkers: ["PASS", "FAIL"], workflowMarkers: [] },
      ]);
      expect(workflow.specialRules.map(({ ruleName, description, parsed }) => ({ ruleName, description, parsed }))).toEqual([
        { ruleName: "escalation_after_failures", description: "Escalate after repeated failures", parsed: { threshold: 2 } },
        { ruleName: "security_sensitive", description: null, parsed: { force_tier: "Senior Software Engineer" } },
      ]);
    });

    it("answers empty lists on a fresh database, and reads write nothing", async () => {
      const f = setup(await freshLedger(engine));
      const before = await tableCountsOf(f.db);
      expect(await f.as("admin").admin.configuration()).toEqual([]);
      expect(await f.as("admin").admin.modelConfig()).toEqual([]);
      expect(await f.as("admin").admin.workflow()).toEqual({ transitions: [], agentMarkers: [], specialRules: [] });
      expect(await tableCountsOf(f.db)).toEqual(before);
    });

    it.each(["viewer", "developer", "verifier", "orchestrator", "lead"] as const)("refuses a %s every one of them", async (name) => {
      const f = await seeded(engine);
      await expectForbidden(f.as(name).admin.configuration(), "may not call admin.configuration");
      await expectForbidden(f.as(name).admin.modelConfig(), "may not call admin.modelConfig");
      await expectForbidden(f.as(name).admin.workflow(), "may not call admin.workflow");
    });

    it("refuses anyone not signed in", async () => {
      const f = await seeded(engine);
      expect((await refusal(f.by(null).admin.workflow())).code).toBe("UNAUTHORIZED");
    });

    it("checks the role in the service too, for callers that do not come through the API", async () => {
      const f = await seeded(engine);
      const lead = { db: f.db, actor: ACTORS.lead };
      for (const read of [readConfiguration, readModelConfig, readWorkflow]) {
        await expect(read(lead)).rejects.toThrow(RoleForbiddenError);
      }
      expect(await readModelConfig({ db: f.db, actor: ACTORS.admin })).toHaveLength(2);
    });
  });
});
