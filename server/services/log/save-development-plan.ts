import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { eq } from "drizzle-orm";
import { developmentPlans } from "@/db/schema";
import { redactJson } from "@/server/domain/redact";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { requireLogWriter } from "./common";
import { redactText } from "./redaction";
import { SaveDevelopmentPlanInput } from "./schemas";
import { parseInput } from "../parse-input";

export type DevelopmentPlanRow = typeof developmentPlans.$inferSelect;

/**
 * Save a session's development plan (BAZINGA's `save-development-plan`). A session has one plan:
 * saving again replaces its text and phases and keeps when it was first created. Prompt, plan
 * text, phases and metadata are redacted on the way in.
 */
export async function saveDevelopmentPlan(ctx: ServiceContext, raw: SaveDevelopmentPlanInput): Promise<DevelopmentPlanRow> {
  requireLogWriter(ctx, "save development plans");
  const input = parseInput(SaveDevelopmentPlanInput, raw, "log.invalid_input");
  const prompt = redactText(input.originalPrompt);
  const planText = redactText(input.planText);
  const phases = redactJson(input.phases);
  const metadata = input.metadata ? redactJson(input.metadata) : null;
  const redacted = prompt.redacted || planText.redacted || phases.redacted || (metadata?.redacted ?? false);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const now = nowOf(ctx);
    const values = {
      originalPrompt: prompt.value,
      planText: planText.value,
      phases: JSON.stringify(phases.value),
      currentPhase: input.currentPhase ?? null,
      totalPhases: input.totalPhases ?? input.phases.length,
      metadata: metadata ? JSON.stringify(metadata.value) : null,
      updatedAt: now,
    };
    const existing = await queryGet(tx.select({ id: developmentPlans.id }).from(developmentPlans).where(eq(developmentPlans.sessionId, input.sessionId)));
    const row = existing
      ? (await queryGet(tx.update(developmentPlans).set(values).where(eq(developmentPlans.id, existing.id)).returning()))!
      : await queryGet(
          tx
            .insert(developmentPlans)
            .values({ ...values, sessionId: input.sessionId, createdAt: now })
            .returning(),
        );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.planSaved,
      sessionId: row.sessionId,
      entity: "development_plan",
      entityId: row.id,
      data: { created: !existing, totalPhases: row.totalPhases, currentPhase: row.currentPhase, redacted },
    });
    return row;
  });
}
