import { queryGet, queryRun } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { eq, max } from "drizzle-orm";
import { toolCalls } from "@/db/schema";
import { assertMayRecordToolCalls } from "@/server/domain/attempt-lifecycle";
import { redactJson, redactSecrets } from "@/server/domain/redact";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { parseInput } from "../parse-input";
import { findResult, loadAttempt } from "./load";
import { RecordToolCallsInput, type ToolCallInput } from "./schemas";
import { ensureTools } from "./tools";
import { authorize } from "@/server/domain/permissions";

export interface RecordedToolCalls {
  attemptId: number;
  count: number;
  firstOrder: number;
  lastOrder: number;
  /** Calls whose input or output had a secret replaced before it was stored. */
  redacted: number;
}

// Eight columns a row: 500 rows stay far below SQLite's bound-parameter limit.
const CHUNK = 500;

/**
 * Append a batch of an attempt's tool calls in one transaction, numbered on from the attempt's
 * last call. Tools are looked up by name in the session and created on first use; a call to a
 * tool the attempt was not given is recorded as made, not added to what it was given. Inputs and
 * outputs are redacted before they are stored: agents paste environments and HTTP traces.
 * Once the attempt has a result it is over and takes no more calls.
 */
export async function recordToolCalls(ctx: ServiceContext, input: RecordToolCallsInput): Promise<RecordedToolCalls> {
  authorize(ctx.actor, "attempt.toolCalls");
  const data = parseInput(RecordToolCallsInput, input, "attempt.invalid_input");
  return write(ctx, async (tx) => {
    const { attempt, goal } = await loadAttempt(tx, data.attemptId);
    assertMayRecordToolCalls({ id: attempt.id, resultStatus: (await findResult(tx, attempt.id))?.status ?? null });
    const now = nowOf(ctx);
    const { byName } = await ensureTools(
      tx,
      goal.sessionId,
      data.calls.map((call) => call.tool),
      now,
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
    const rows = data.calls.map((call, i) => {
      const stored = redactCall(call);
      if (stored.redacted) redacted += 1;
      return {
        attemptId: attempt.id,
        order: last + i + 1,
        toolId: byName.get(call.tool)!.id,
        toolName: call.tool,
        input: stored.input,
        output: stored.output,
        timestamp: now,
      };
    });
    for (let i = 0; i < rows.length; i += CHUNK) await queryRun(tx.insert(toolCalls).values(rows.slice(i, i + CHUNK)));
    const recorded = { attemptId: attempt.id, count: rows.length, firstOrder: last + 1, lastOrder: last + rows.length, redacted };
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.toolCallsRecorded,
      sessionId: goal.sessionId,
      entity: "attempt",
      entityId: attempt.id,
      data: { goalId: goal.id, ...recorded },
    });
    return recorded;
  });
}

function redactCall(call: ToolCallInput): { input: string | null; output: string | null; redacted: boolean } {
  let redacted = false;
  let input: string | null = null;
  if (typeof call.input === "string") {
    const result = redactSecrets(call.input);
    input = result.text;
    redacted = result.redacted;
  } else if (call.input !== undefined) {
    const result = redactJson(call.input);
    input = JSON.stringify(result.value);
    redacted = result.redacted;
  }
  const output = call.output === undefined ? null : redactSecrets(call.output);
  return { input, output: output?.text ?? null, redacted: redacted || (output?.redacted ?? false) };
}
