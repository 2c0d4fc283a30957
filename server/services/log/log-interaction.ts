import { type ServiceContext, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { appendLogRow } from "./append-log";
import { requireLogWriter } from "./common";
import { type LogRow, interactionValues } from "./log-row";
import { LogInteractionInput } from "./schemas";
import { parseInput } from "../parse-input";

/**
 * Log an agent interaction (BAZINGA's `log-interaction`). Secrets in the content are redacted on
 * the way in and the row is flagged `redacted`; a `logs.appended` event names the new row.
 */
export async function logInteraction(ctx: ServiceContext, raw: LogInteractionInput): Promise<LogRow> {
  requireLogWriter(ctx, "write logs");
  const input = parseInput(LogInteractionInput, raw, "log.invalid_input");
  const values = interactionValues(input.sessionId, nowOf(ctx), input);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    return appendLogRow(tx, ctx, values);
  });
}
