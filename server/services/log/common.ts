import type { Role } from "@/server/domain/actors";
import { type ServiceContext, requireRole } from "../context";

/** Everyone who acts in a session logs: agents, orchestrators, verifiers, leads and admins. Viewers only read. */
export const LOG_WRITER_ROLES: readonly Role[] = ["agent", "orchestrator", "verifier", "lead", "admin"];

/** The one rule every telemetry write checks first. */
export function requireLogWriter(ctx: ServiceContext, action: string): void {
  requireRole(ctx, LOG_WRITER_ROLES, "log.write_role", action);
}
