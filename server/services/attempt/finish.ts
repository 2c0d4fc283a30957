import { queryGet } from "@/db/query";
import { attemptResults } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { assertMayFinish } from "@/server/domain/attempt-lifecycle";
import { redactSecrets } from "@/server/domain/redact";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { parseInput } from "../parse-input";
import { type AttemptResultRow, findResult, loadAttempt } from "./load";
import { FinishAttemptInput } from "./schemas";
import { authorize } from "@/server/domain/permissions";

/**
 * Record how an attempt ended, once: its status, end commit and diff, and the evidence the goal
 * gate reads (metrics, markers, artifacts, verified findings, output). A second result is refused
 * (`attempt.already_finished`); the unique index is the backstop. Free text is redacted first.
 */
export async function finishAttempt(ctx: ServiceContext, input: FinishAttemptInput): Promise<AttemptResultRow> {
  authorize(ctx.actor, "attempt.finish");
  const data = parseInput(FinishAttemptInput, input, "attempt.invalid_input");
  return write(ctx, async (tx) => {
    const { attempt, goal } = await loadAttempt(tx, data.attemptId);
    assertMayFinish({ id: attempt.id, resultStatus: (await findResult(tx, attempt.id))?.status ?? null });
    const text = (value: string | undefined) => (value === undefined ? null : redactSecrets(value).text);
    const result = await queryGet(
      tx
        .insert(attemptResults)
        .values({
          attemptId: attempt.id,
          status: data.status,
          endCommitSha: data.endCommitSha ?? null,
          diff: text(data.diff),
          statusDetail: text(data.statusDetail),
          metrics: data.metrics ?? null,
          markers: data.markers ?? null,
          artifacts: data.artifacts ?? null,
          verifiedFindings: data.verifiedFindings ?? null,
          output: text(data.output),
          timestamp: nowOf(ctx),
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.attemptFinished,
      sessionId: goal.sessionId,
      entity: "attempt",
      entityId: attempt.id,
      data: { goalId: goal.id, status: result.status },
    });
    return result;
  });
}
