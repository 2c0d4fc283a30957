import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { decisions } from "@/db/schema";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { requireLogWriter } from "./common";
import { redactDocument } from "./redaction";
import { SaveDecisionInput } from "./schemas";
import { parseInput } from "../parse-input";

export type DecisionRow = typeof decisions.$inferSelect;

/** Record an orchestrator decision (spawn_agent, escalate_model…) with its JSON details, redacted. */
export async function saveDecision(ctx: ServiceContext, raw: SaveDecisionInput): Promise<DecisionRow> {
  requireLogWriter(ctx, "record decisions");
  const input = parseInput(SaveDecisionInput, raw, "log.invalid_input");
  const data = redactDocument(input.data);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const row = await queryGet(
      tx
        .insert(decisions)
        .values({
          sessionId: input.sessionId,
          decisionType: input.decisionType,
          decisionData: data.value,
          iteration: input.iteration ?? null,
          timestamp: nowOf(ctx),
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.decisionSaved,
      sessionId: row.sessionId,
      entity: "decision",
      entityId: row.id,
      data: { decisionType: row.decisionType, iteration: row.iteration, redacted: data.redacted },
    });
    return row;
  });
}
