import { queryAll } from "@/db/query";
import { asc } from "drizzle-orm";
import { agentMarkers, configuration, modelConfig, workflowSpecialRules, workflowTransitions } from "@/db/schema";
import { type ServiceContext } from "../context";
import { authorize } from "@/server/domain/permissions";

// Read-only views of the server-wide configuration and BAZINGA's workflow tables for the settings
// page. Values that BAZINGA stores as JSON text are returned parsed beside the stored text.

export interface ConfigurationEntry {
  key: string;
  /** The stored text. */
  value: string;
  /** The value parsed as JSON, or the text itself when it is not JSON. */
  parsed: unknown;
  updatedAt: Date;
}

export type ModelConfigEntry = typeof modelConfig.$inferSelect;
export type WorkflowTransitionEntry = typeof workflowTransitions.$inferSelect;

export interface AgentMarkerEntry {
  id: number;
  agentType: string;
  requiredMarkers: string[];
  workflowMarkers: string[];
}

export interface SpecialRuleEntry {
  id: number;
  ruleName: string;
  description: string | null;
  config: string;
  parsed: unknown;
}

export interface WorkflowTables {
  transitions: WorkflowTransitionEntry[];
  agentMarkers: AgentMarkerEntry[];
  specialRules: SpecialRuleEntry[];
}

function requireAdmin(ctx: ServiceContext, what: string): void {
  authorize(ctx.actor, "admin.config", `read ${what}`);
}

/** Server-wide settings (`configuration`), by key. */
export async function readConfiguration(ctx: ServiceContext): Promise<ConfigurationEntry[]> {
  requireAdmin(ctx, "the configuration");
  return (await queryAll(ctx.db.select().from(configuration).orderBy(asc(configuration.key)))).map((row) => ({ ...row, parsed: parseJson(row.value) }));
}

/** Which model each agent role uses (`model_config`), by role. */
export async function readModelConfig(ctx: ServiceContext): Promise<ModelConfigEntry[]> {
  requireAdmin(ctx, "the model configuration");
  return await queryAll(ctx.db.select().from(modelConfig).orderBy(asc(modelConfig.agentRole)));
}

/** The workflow routing tables: transitions (by agent, then response status), required markers, special rules. */
export async function readWorkflow(ctx: ServiceContext): Promise<WorkflowTables> {
  requireAdmin(ctx, "the workflow tables");
  const transitions = await queryAll(
    ctx.db.select().from(workflowTransitions).orderBy(asc(workflowTransitions.currentAgent), asc(workflowTransitions.responseStatus)),
  );
  const markers = await queryAll(ctx.db.select().from(agentMarkers).orderBy(asc(agentMarkers.agentType)));
  const rules = await queryAll(ctx.db.select().from(workflowSpecialRules).orderBy(asc(workflowSpecialRules.ruleName)));
  return {
    transitions,
    agentMarkers: markers.map((m) => ({
      id: m.id,
      agentType: m.agentType,
      requiredMarkers: markerList(m.requiredMarkers),
      workflowMarkers: markerList(m.workflowMarkers),
    })),
    specialRules: rules.map((r) => ({ ...r, parsed: parseJson(r.config) })),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** BAZINGA stores marker lists as JSON arrays; a bare word (hand-written row) is a list of one. */
function markerList(text: string | null): string[] {
  if (text === null || text.trim() === "") return [];
  const parsed = parseJson(text);
  if (Array.isArray(parsed)) return parsed.map(String);
  return [String(parsed)];
}
