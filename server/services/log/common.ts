import { authorize } from "@/server/domain/permissions";
import type { ServiceContext } from "../context";

/** The one rule every telemetry write checks first (permissions.ts: `log.write`). */
export function requireLogWriter(ctx: ServiceContext, action: string): void {
  authorize(ctx.actor, "log.write", action);
}
