import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { tokenUsage } from "@/db/schema";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { requireLogWriter } from "./common";
import { LogTokensInput } from "./schemas";
import { parseInput } from "../parse-input";

export type TokenUsageRow = typeof tokenUsage.$inferSelect;

/** Record an agent's estimated token use (BAZINGA's `log-tokens`), with the model when known. */
export async function logTokens(ctx: ServiceContext, raw: LogTokensInput): Promise<TokenUsageRow> {
  requireLogWriter(ctx, "log tokens");
  const input = parseInput(LogTokensInput, raw, "log.invalid_input");
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const row = await queryGet(
      tx
        .insert(tokenUsage)
        .values({
          sessionId: input.sessionId,
          timestamp: nowOf(ctx),
          agentType: input.agentType,
          agentId: input.agentId ?? null,
          tokensEstimated: input.tokens,
          model: input.model ?? null,
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.tokensLogged,
      sessionId: row.sessionId,
      entity: "token_usage",
      entityId: row.id,
      data: { count: 1, firstId: row.id, lastId: row.id, tokens: row.tokensEstimated, agentType: row.agentType },
    });
    return row;
  });
}
