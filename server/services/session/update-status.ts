import { queryGet } from "@/db/query";
import { eq } from "drizzle-orm";
import { sessions } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { GateRejectedError } from "@/server/domain/errors";
import { recordCompletionCheck } from "../completion/check";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { type SessionRow, loadSession } from "./load";
import { SetEnforcementInput, UpdateSessionStatusInput } from "./schemas";
import { parseInput } from "../parse-input";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

/**
 * Change a session's status. Completing one runs the completion gate first and records the check:
 * an `enforce` session that fails it stays as it is (GateRejectedError with every reason); an
 * `observe` session is marked completed as its orchestrator said, with the rejected check on record.
 */
export async function updateSessionStatus(
  ctx: ServiceContext,
  raw: UpdateSessionStatusInput,
): Promise<{ session: SessionRow; check: Awaited<ReturnType<typeof recordCompletionCheck>> | null }> {
  authorize(ctx.actor, "session.updateStatus");
  const input = parseInput(UpdateSessionStatusInput, raw, "session.invalid_input");
  const result = await write(ctx, async (tx) => {
    const session = await loadSession(tx, input.sessionId);
    const now = nowOf(ctx);
    const check =
      input.status === "completed" ? await recordCompletionCheck(tx, ctx, session.id, session.enforcement === "observe" ? "completed" : null) : null;
    if (check && !check.accepted && session.enforcement === "enforce") return { rejected: check, session, check };
    const updated = (await queryGet(
      tx
        .update(sessions)
        .set({ status: input.status, endedAt: input.status === "active" ? null : now, updatedAt: now })
        .where(eq(sessions.id, session.id))
        .returning(),
    ))!;
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.sessionStatusChanged,
      sessionId: session.id,
      entity: "session",
      entityId: session.id,
      data: { from: session.status, to: input.status },
    });
    return { rejected: null, session: updated, check };
  });
  // The rejected check stays recorded (its transaction committed); the session did not change.
  if (result.rejected) {
    throw new GateRejectedError(
      "completion.rejected",
      `session ${input.sessionId} cannot complete: the completion gate rejected it (${result.rejected.metCount}/${result.rejected.totalCount} required criteria met)`,
      result.rejected.reasons,
    );
  }
  return { session: result.session, check: result.check };
}

/** Only a lead (or admin) switches a session between `enforce` and `observe`, with a reason on record. */
export async function setSessionEnforcement(ctx: ServiceContext, unredacted: SetEnforcementInput): Promise<SessionRow> {
  authorize(ctx.actor, "session.setEnforcement");
  const input = redactInput(parseInput(SetEnforcementInput, unredacted, "session.invalid_input"));
  return write(ctx, async (tx) => {
    const session = await loadSession(tx, input.sessionId);
    const updated = (await queryGet(
      tx
        .update(sessions)
        .set({ enforcement: input.enforcement, updatedAt: nowOf(ctx) })
        .where(eq(sessions.id, session.id))
        .returning(),
    ))!;
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.sessionEnforcementChanged,
      sessionId: session.id,
      entity: "session",
      entityId: session.id,
      data: { from: session.enforcement, to: input.enforcement, reason: input.reason },
    });
    return updated;
  });
}
