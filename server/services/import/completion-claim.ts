import { recordCompletionCheck, type CompletionCheckRow } from "../completion/check";
import { type ServiceContext, write } from "../context";
import { authorize } from "@/server/domain/permissions";

export interface CompletionClaimInput {
  sessionId: string;
  /** The orchestrator's event that claimed completion (`pm_bazinga`) or judged it (`validator_verdict`). */
  source: "pm_bazinga" | "validator_verdict";
  /** What the orchestrator said (BAZINGA, ACCEPT, REJECT…), kept beside the gate's own verdict. */
  claimedVerdict: string;
}

/**
 * An orchestrator's completion claim, as an import brings it in: the completion gate runs on the
 * session's rows as they stand and its verdict is recorded beside the one the orchestrator gave.
 */
export async function recordCompletionClaim(ctx: ServiceContext, input: CompletionClaimInput): Promise<CompletionCheckRow> {
  authorize(ctx.actor, "completion.recordClaim");
  return write(ctx, async (tx) => recordCompletionCheck(tx, ctx, input.sessionId, input.claimedVerdict, input.source));
}
