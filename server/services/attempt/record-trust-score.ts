import { queryAll, queryGet } from "@/db/query";
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { events, trustScores } from "@/db/schema";
import { type Actor, comparablePrincipal } from "@/server/domain/actors";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { assertMayScore } from "@/server/domain/attempt-lifecycle";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { parseInput } from "../parse-input";
import { findResult, loadAttempt } from "./load";
import { RecordTrustScoreInput } from "./schemas";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

export type TrustScoreRow = typeof trustScores.$inferSelect;

/** The writes that make someone the attempt's own agent: starting it, recording its calls and runs, finishing it. */
const RECORDING_EVENTS = [EVENT_TYPES.attemptStarted, EVENT_TYPES.attemptFinished, EVENT_TYPES.toolCallsRecorded, EVENT_TYPES.validationRunRecorded];

/**
 * A verifier's trust score (0–100) for a finished attempt's evidence: the trust gate's input.
 * Scores are appended, never replaced; the gate reads the latest. Whoever recorded the attempt may
 * not score it (`trust_score.own_attempt`), compared as for task claimants: by agent label, and
 * by principal unless it is the shared local operator (then only labels tell agents apart).
 */
export async function recordTrustScore(ctx: ServiceContext, unredacted: RecordTrustScoreInput): Promise<TrustScoreRow> {
  const input = redactInput(unredacted);
  authorize(ctx.actor, "attempt.trustScore");
  const data = parseInput(RecordTrustScoreInput, input, "trust_score.invalid_input");
  return write(ctx, async (tx) => {
    const { attempt, goal } = await loadAttempt(tx, data.attemptId);
    const resultStatus = (await findResult(tx, attempt.id))?.status ?? null;
    assertMayScore(
      { id: attempt.id, resultStatus },
      { label: ctx.actor.label, recordedTheAttempt: resultStatus !== null && (await recordedBy(tx, goal.sessionId, attempt.id, ctx.actor)) },
    );
    const row = await queryGet(
      tx
        .insert(trustScores)
        .values({
          attemptId: attempt.id,
          score: data.score,
          notes: data.notes ?? null,
          actor: ctx.actor.label,
          principalId: ctx.actor.principalId,
          at: nowOf(ctx),
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.trustScored,
      sessionId: goal.sessionId,
      entity: "attempt",
      entityId: attempt.id,
      data: { goalId: goal.id, score: row.score },
    });
    return row;
  });
}

/** The attempt rows carry no actor, so who recorded it is read from its events (the audit trail). */
async function recordedBy(tx: Tx, sessionId: string, attemptId: number, actor: Actor): Promise<boolean> {
  const principal = comparablePrincipal(actor);
  const recorders = await queryAll(
    tx
      .select({ actor: events.actor, principalId: events.principalId })
      .from(events)
      .where(
        and(eq(events.sessionId, sessionId), eq(events.entity, "attempt"), eq(events.entityId, String(attemptId)), inArray(events.type, RECORDING_EVENTS)),
      ),
  );
  return recorders.some((r) => r.actor === actor.label || (principal !== null && r.principalId === principal));
}
