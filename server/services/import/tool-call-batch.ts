import { queryGet, queryRun } from "@/db/query";
import { eq, max } from "drizzle-orm";
import { toolCalls } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ForbiddenTransitionError } from "@/server/domain/errors";
import { redactJson, redactSecrets } from "@/server/domain/redact";
import { findResult, loadAttempt } from "../attempt/load";
import { ToolCallInput } from "../attempt/schemas";
import { ensureTools } from "../attempt/tools";
import { type ServiceContext, appendEvent, write } from "../context";
import { authorize } from "@/server/domain/permissions";
import { parseInput } from "../parse-input";

function redactedJson(value: unknown): { text: string; redacted: boolean } {
  const result = redactJson(value);
  return { text: JSON.stringify(result.value), redacted: result.redacted };
}

export interface TimedToolCall {
  at: Date;
  call: ToolCallInput;
}

/**
 * `recordToolCalls` for history: the same checks (an attempt that has a result takes no more
 * calls), the same session-scoped tools created on first use, the same redaction and one
 * `attempt.tool_calls_recorded` event — but each call keeps the time it was made.
 * @returns the order the first call got (the rest follow it).
 */
export async function importTimedToolCalls(
  ctx: ServiceContext,
  input: { attemptId: number; calls: readonly TimedToolCall[] },
): Promise<{ firstOrder: number; count: number }> {
  authorize(ctx.actor, "attempt.toolCalls");
  const calls = input.calls.map((c) => ({ at: c.at, call: parseInput(ToolCallInput, c.call, "attempt.invalid_input") }));
  return write(ctx, async (tx) => {
    const { attempt, goal } = await loadAttempt(tx, input.attemptId);
    if (await findResult(tx, attempt.id))
      throw new ForbiddenTransitionError("attempt.already_finished", `attempt ${attempt.id} has finished: it takes no more tool calls`);
    const { byName } = await ensureTools(
      tx,
      goal.sessionId,
      calls.map((c) => c.call.tool),
      calls[0]?.at ?? new Date(),
    );
    const last =
      (
        await queryGet(
          tx
            .select({ last: max(toolCalls.order) })
            .from(toolCalls)
            .where(eq(toolCalls.attemptId, attempt.id)),
        )
      )?.last ?? 0;
    let redacted = 0;
    for (const [i, { at, call }] of calls.entries()) {
      const inputText = call.input === undefined ? null : typeof call.input === "string" ? redactSecrets(call.input) : redactedJson(call.input);
      const output = call.output === undefined ? null : redactSecrets(call.output);
      if (inputText?.redacted || output?.redacted) redacted += 1;
      await queryRun(
        tx.insert(toolCalls).values({
          attemptId: attempt.id,
          order: last + i + 1,
          toolId: byName.get(call.tool)!.id,
          toolName: call.tool,
          input: inputText?.text ?? null,
          output: output?.text ?? null,
          timestamp: at,
        }),
      );
    }
    const recorded = { attemptId: attempt.id, count: calls.length, firstOrder: last + 1, lastOrder: last + calls.length, redacted };
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.toolCallsRecorded,
      sessionId: goal.sessionId,
      entity: "attempt",
      entityId: attempt.id,
      data: { goalId: goal.id, ...recorded, imported: true },
    });
    return { firstOrder: recorded.firstOrder, count: recorded.count };
  });
}
