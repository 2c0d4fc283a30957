import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { eq } from "drizzle-orm";
import { developmentPlans } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { requireLogWriter } from "./common";
import { readJson } from "./redaction";
import { UpdatePlanProgressInput } from "./schemas";
import type { DevelopmentPlanRow } from "./save-development-plan";
import { parseInput } from "../parse-input";

type StoredPhase = Record<string, unknown> & { phase?: unknown; status?: unknown };

/**
 * Set one phase's status in the session's development plan and make it the current phase
 * (BAZINGA's `update-plan-progress`); a completed phase gets its `completed_at` and 100 percent.
 */
export async function updatePlanProgress(ctx: ServiceContext, raw: UpdatePlanProgressInput): Promise<DevelopmentPlanRow> {
  requireLogWriter(ctx, "update plan progress");
  const input = parseInput(UpdatePlanProgressInput, raw, "log.invalid_input");
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const plan = await queryGet(tx.select().from(developmentPlans).where(eq(developmentPlans.sessionId, input.sessionId)));
    if (!plan) throw new NotFoundError("development_plan", input.sessionId);
    const stored = readJson(plan.phases);
    const phases: StoredPhase[] = Array.isArray(stored) ? (stored as StoredPhase[]) : [];
    const target = phases.find((phase) => phase.phase === input.phase);
    if (!target) throw new NotFoundError("development_plan_phase", `${input.sessionId}#${input.phase}`);
    const now = nowOf(ctx);
    const from = target.status ?? null;
    target.status = input.status;
    // BAZINGA's progress_percent: as given, and 100 once the phase is completed.
    if (input.progressPercent !== undefined) target.progress_percent = input.progressPercent;
    if (input.status === "completed") {
      target.completed_at = now.toISOString();
      target.progress_percent = 100;
    }
    const row = (await queryGet(
      tx
        .update(developmentPlans)
        .set({ phases: JSON.stringify(phases), currentPhase: input.phase, updatedAt: now })
        .where(eq(developmentPlans.id, plan.id))
        .returning(),
    ))!;
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.planProgressUpdated,
      sessionId: row.sessionId,
      entity: "development_plan",
      entityId: row.id,
      data: { phase: input.phase, from, to: input.status },
    });
    return row;
  });
}
