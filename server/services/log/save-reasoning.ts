import { type ServiceContext, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { appendLogRow } from "./append-log";
import { requireLogWriter } from "./common";
import { type LogRow, reasoningValues } from "./log-row";
import { SaveReasoningInput } from "./schemas";
import { parseInput } from "../parse-input";

/**
 * Save an agent's reasoning for one of the seven phases (BAZINGA's `save-reasoning`), for a task
 * group or `global`. Content and references are redacted; the row is flagged when anything was.
 */
export async function saveReasoning(ctx: ServiceContext, raw: SaveReasoningInput): Promise<LogRow> {
  requireLogWriter(ctx, "save reasoning");
  const input = parseInput(SaveReasoningInput, raw, "log.invalid_input");
  const values = reasoningValues(input.sessionId, nowOf(ctx), input);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    return appendLogRow(tx, ctx, values);
  });
}
