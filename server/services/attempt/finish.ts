import { attemptResults } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ForbiddenTransitionError } from "@/server/domain/errors";
import { redactSecrets } from "@/server/domain/redact";
import { type ServiceContext, appendEvent, nowOf, requireRole, write } from "../context";
import { parseInput } from "../parse-input";
import { RECORD_ROLES } from "../goal/roles";
import { type AttemptResultRow, findResult, loadAttempt } from "./load";
import { FinishAttemptInput } from "./schemas";

/**
 * Record how an attempt ended, once: its status, end commit and diff, and the evidence the goal
 * gate reads (metrics, markers, artifacts, verified findings, output). A second result is refused
 * (`attempt.already_finished`); the unique index is the backstop. Free text is redacted first.
 */
export function finishAttempt(ctx: ServiceContext, input: FinishAttemptInput): AttemptResultRow {
  requireRole(ctx, RECORD_ROLES, "attempt.finish_role", "finish attempts");
  const data = parseInput(FinishAttemptInput, input, "attempt.invalid_input");
  return write(ctx, (tx) => {
    const { attempt, goal } = loadAttempt(tx, data.attemptId);
    const existing = findResult(tx, attempt.id);
    if (existing) throw new ForbiddenTransitionError("attempt.already_finished", `attempt ${attempt.id} already finished (${existing.status}); results are never replaced`);
    const text = (value: string | undefined) => (value === undefined ? null : redactSecrets(value).text);
    const result = tx
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
      .returning()
      .get();
    appendEvent(tx, ctx, { type: EVENT_TYPES.attemptFinished, sessionId: goal.sessionId, entity: "attempt", entityId: attempt.id, data: { goalId: goal.id, status: result.status } });
    return result;
  });
}
