import { type ConfigRow, importConfigRow } from "../workflow-config";
import { type ImportRun, apply, at } from "../run";
import { firstTime, int, label, text } from "../values";
import type { BazingaState } from "./read";

const flag = (value: unknown) => int(value) === 1 || value === true;
const raw = (value: unknown) => (value === null || value === undefined ? null : String(value));

/**
 * BAZINGA's deterministic-orchestration tables (v13: routing transitions, required prompt
 * markers, special rules) and, where the file still has them, configuration and model
 * assignments: server-wide rows, keyed by their natural key. A row is written when it is new or
 * changed in BAZINGA since the last import; a value an admin changed in Proofgate since is kept
 * until BAZINGA changes that row again.
 */
export async function importConfig(run: ImportRun, config: BazingaState["config"]): Promise<void> {
  const rows: [string, string, ConfigRow, unknown][] = [
    ...config.transitions.map((r): [string, string, ConfigRow, unknown] => [
      "workflow transitions",
      `${text(r.current_agent)}|${text(r.response_status)}`,
      {
        table: "workflow_transitions",
        values: {
          currentAgent: label(r.current_agent) ?? "",
          responseStatus: label(r.response_status) ?? "",
          nextAgent: label(r.next_agent),
          action: label(r.action) ?? "",
          includeContext: raw(r.include_context),
          escalationCheck: flag(r.escalation_check),
          modelOverride: label(r.model_override),
          fallbackAgent: label(r.fallback_agent),
          bypassQa: flag(r.bypass_qa),
          maxParallel: int(r.max_parallel),
          thenAction: label(r.then_action),
        },
      },
      null,
    ]),
    ...config.markers.map((r): [string, string, ConfigRow, unknown] => [
      "agent markers",
      text(r.agent_type) ?? "",
      {
        table: "agent_markers",
        values: { agentType: label(r.agent_type) ?? "", requiredMarkers: raw(r.required_markers) ?? "", workflowMarkers: raw(r.workflow_markers) },
      },
      null,
    ]),
    ...config.rules.map((r): [string, string, ConfigRow, unknown] => [
      "special rules",
      text(r.rule_name) ?? "",
      { table: "workflow_special_rules", values: { ruleName: label(r.rule_name) ?? "", description: raw(r.description), config: raw(r.config) ?? "" } },
      null,
    ]),
    ...config.configuration.map((r): [string, string, ConfigRow, unknown] => [
      "configuration",
      text(r.key) ?? "",
      { table: "configuration", values: { key: label(r.key) ?? "", value: raw(r.value) ?? "" } },
      r.updated_at,
    ]),
    ...config.models.map((r): [string, string, ConfigRow, unknown] => [
      "model config",
      text(r.agent_role) ?? "",
      { table: "model_config", values: { agentRole: label(r.agent_role) ?? "", model: label(r.model) ?? "", rationale: raw(r.rationale) } },
      r.updated_at,
    ]),
  ];
  for (const [entity, key, row, updatedAt] of rows) {
    run.tally.read(entity);
    const state = JSON.stringify(row.values);
    const record = await run.book.get(row.table, key);
    if (record && record.state === state) {
      run.tally.count(entity, "unchanged");
      continue;
    }
    const when = firstTime(run.startedAt, updatedAt);
    await apply(run, entity, key, async () => {
      const saved = await importConfigRow(at(run, when), row);
      await run.book.put(row.table, key, { targetId: saved.id, sessionId: null, state: row.values }, when);
      return record ? "updated" : "imported";
    });
  }
}
