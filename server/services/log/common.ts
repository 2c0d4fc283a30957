import type { Role } from "@/server/domain/actors";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type ServiceContext, requireRole } from "../context";

/** Everyone who acts in a session logs: agents, orchestrators, verifiers, leads and admins. Viewers only read. */
export const LOG_WRITER_ROLES: readonly Role[] = ["agent", "orchestrator", "verifier", "lead", "admin"];

/** The one rule every telemetry write checks first. */
export function requireLogWriter(ctx: ServiceContext, action: string): void {
  requireRole(ctx, LOG_WRITER_ROLES, "log.write_role", action);
}

/**
 * The `events` types telemetry writes append. The first three are the domain's; the rest are new
 * here and belong beside them in `server/domain/event-types.ts`.
 */
export const LOG_EVENTS = {
  logsAppended: EVENT_TYPES.logsAppended,
  tokensLogged: EVENT_TYPES.tokensLogged,
  stateSaved: EVENT_TYPES.stateSaved,
  skillOutputSaved: "skill_output.saved",
  decisionSaved: "decision.saved",
  planSaved: "plan.saved",
  planProgressUpdated: "plan.progress_updated",
  contextPackageSaved: "context_package.saved",
  contextConsumed: "context_package.consumed",
} as const;
