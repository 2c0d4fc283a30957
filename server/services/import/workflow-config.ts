import { queryGet, queryRun } from "@/db/query";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { agentMarkers, configuration, modelConfig, workflowSpecialRules, workflowTransitions } from "@/db/schema";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { Label, Text } from "../schemas-common";
import { parseRow } from "./parse";
import { authorize } from "@/server/domain/permissions";

/** The event an imported configuration row writes (server-wide, so no session). */
export const CONFIG_IMPORTED = "config.imported";

const JsonText = z
  .string()
  .max(100_000)
  .refine((t) => {
    try {
      JSON.parse(t);
      return true;
    } catch {
      return false;
    }
  }, "must be JSON text");

export const WorkflowTransitionRow = z.strictObject({
  currentAgent: Label,
  responseStatus: Label,
  nextAgent: Label.nullable(),
  action: Label,
  includeContext: JsonText.nullable(),
  escalationCheck: z.boolean(),
  modelOverride: Label.nullable(),
  fallbackAgent: Label.nullable(),
  bypassQa: z.boolean(),
  maxParallel: z.number().int().min(0).nullable(),
  thenAction: Label.nullable(),
});
export const AgentMarkerRow = z.strictObject({ agentType: Label, requiredMarkers: JsonText, workflowMarkers: JsonText.nullable() });
export const SpecialRuleRow = z.strictObject({ ruleName: Label, description: Text.nullable(), config: JsonText });
export const ConfigurationRow = z.strictObject({ key: Label, value: Text });
export const ModelConfigRow = z.strictObject({ agentRole: Label, model: Label, rationale: Text.nullable() });

export type ConfigRow =
  | { table: "workflow_transitions"; values: z.input<typeof WorkflowTransitionRow> }
  | { table: "agent_markers"; values: z.input<typeof AgentMarkerRow> }
  | { table: "workflow_special_rules"; values: z.input<typeof SpecialRuleRow> }
  | { table: "configuration"; values: z.input<typeof ConfigurationRow> }
  | { table: "model_config"; values: z.input<typeof ModelConfigRow> };

/**
 * An orchestrator's workflow configuration row (BAZINGA's routing transitions, required prompt
 * markers, special rules, configuration, model assignments), inserted or updated by its natural
 * key, with a `config.imported` event. Server-wide: admins only.
 */
export async function importConfigRow(ctx: ServiceContext, row: ConfigRow): Promise<{ id: string; created: boolean }> {
  authorize(ctx.actor, "import.workflowConfig");
  const now = nowOf(ctx);
  return write(ctx, async (tx) => {
    let id: string;
    let created: boolean;
    switch (row.table) {
      case "workflow_transitions": {
        const v = parseRow(WorkflowTransitionRow, row.values);
        const key = and(eq(workflowTransitions.currentAgent, v.currentAgent), eq(workflowTransitions.responseStatus, v.responseStatus));
        const existing = await queryGet(tx.select({ id: workflowTransitions.id }).from(workflowTransitions).where(key));
        created = !existing;
        id = String(
          existing
            ? (await queryGet(tx.update(workflowTransitions).set(v).where(key).returning()))!.id
            : (await queryGet(tx.insert(workflowTransitions).values(v).returning())).id,
        );
        break;
      }
      case "agent_markers": {
        const v = parseRow(AgentMarkerRow, row.values);
        const existing = await queryGet(tx.select({ id: agentMarkers.id }).from(agentMarkers).where(eq(agentMarkers.agentType, v.agentType)));
        created = !existing;
        id = String(
          existing
            ? (await queryGet(tx.update(agentMarkers).set(v).where(eq(agentMarkers.id, existing.id)).returning()))!.id
            : (await queryGet(tx.insert(agentMarkers).values(v).returning())).id,
        );
        break;
      }
      case "workflow_special_rules": {
        const v = parseRow(SpecialRuleRow, row.values);
        const existing = await queryGet(
          tx.select({ id: workflowSpecialRules.id }).from(workflowSpecialRules).where(eq(workflowSpecialRules.ruleName, v.ruleName)),
        );
        created = !existing;
        id = String(
          existing
            ? (await queryGet(tx.update(workflowSpecialRules).set(v).where(eq(workflowSpecialRules.id, existing.id)).returning()))!.id
            : (await queryGet(tx.insert(workflowSpecialRules).values(v).returning())).id,
        );
        break;
      }
      case "configuration": {
        const v = parseRow(ConfigurationRow, row.values);
        const existing = await queryGet(tx.select({ key: configuration.key }).from(configuration).where(eq(configuration.key, v.key)));
        created = !existing;
        if (existing) await queryRun(tx.update(configuration).set({ value: v.value, updatedAt: now }).where(eq(configuration.key, v.key)));
        else await queryRun(tx.insert(configuration).values({ ...v, updatedAt: now }));
        id = v.key;
        break;
      }
      case "model_config": {
        const v = parseRow(ModelConfigRow, row.values);
        const existing = await queryGet(tx.select({ agentRole: modelConfig.agentRole }).from(modelConfig).where(eq(modelConfig.agentRole, v.agentRole)));
        created = !existing;
        if (existing)
          await queryRun(tx.update(modelConfig).set({ model: v.model, rationale: v.rationale, updatedAt: now }).where(eq(modelConfig.agentRole, v.agentRole)));
        else await queryRun(tx.insert(modelConfig).values({ ...v, updatedAt: now }));
        id = v.agentRole;
        break;
      }
    }
    await appendEvent(tx, ctx, { type: CONFIG_IMPORTED, sessionId: null, entity: row.table, entityId: id, data: { created } });
    return { id, created };
  });
}
