import { criterionUpdates, successCriteria } from "@/db/schema";
import type { Actor } from "@/server/domain/actors";
import type { CriterionState, CriterionStatus } from "@/server/domain/criteria";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { type SessionContext, demoActor, emit, tick } from "./context";
import { CRITERIA, EXTERNAL_BLOCKERS, VERIFIERS } from "./vocabulary";

const PM = demoActor("pm", "agent");

export type CriteriaOutcome = "all_met" | "mixed" | "failing";

/**
 * Save a session's criteria (pending), then report each one's status with actual and evidence, and
 * let a verifier record findings on some — sometimes disagreeing with the PM, as 000 describes.
 */
export function generateCriteria(ctx: SessionContext, outcome: CriteriaOutcome, onSaved?: (saved: CriterionState[]) => void): CriterionState[] {
  const { r } = ctx;
  const count = Math.min(CRITERIA.length, r.around(5, 2));
  const texts = [...CRITERIA].sort(() => r.next() - 0.5).slice(0, count);
  const saved = texts.map((criterion) => {
    const required = r.chance(0.85);
    const id = ctx.w.insert(successCriteria, {
      sessionId: ctx.sessionId,
      criterion,
      status: "pending",
      requiredForCompletion: required,
      createdBy: PM.label,
      createdAt: new Date(ctx.clock),
      updatedAt: new Date(ctx.clock),
    });
    record(ctx, id, "create", PM, { toStatus: "pending", required });
    emit(ctx, EVENT_TYPES.criteriaSaved, "criterion", id, PM, { criterion });
    return {
      id,
      state: { criterion, status: "pending", actual: null, evidence: null, requiredForCompletion: required, verifierStatus: null } as CriterionState,
    };
  });
  onSaved?.(saved.map((s) => ({ ...s.state })));

  for (const { id, state } of saved) {
    const status = pickStatus(ctx, outcome);
    if (status === "pending") continue;
    const at = tick(ctx, 1, 30);
    const actual =
      status === "met"
        ? r.pick(["711/711 tests passing", "Coverage 87.3%", "0 high findings", "p95 142 ms", "cv_accuracy_mean 0.84"])
        : status === "failed"
          ? r.pick(["3 tests failing", "Coverage 58%", "p95 380 ms"])
          : "Cannot run: external dependency unavailable";
    const evidence = status === "blocked" ? r.pick(EXTERNAL_BLOCKERS) : `artifacts/${ctx.sessionId}/criteria/${id}.txt`;
    ctx.w.update(successCriteria, id, { status, actual, evidence, updatedAt: at });
    record(ctx, id, "claim", PM, { fromStatus: "pending", toStatus: status, actual, evidence });
    emit(ctx, EVENT_TYPES.criterionUpdated, "criterion", id, PM, { criterion: state.criterion, from: "pending", to: status });
    Object.assign(state, { status, actual, evidence });

    if (r.chance(0.4)) {
      const verifier = demoActor(r.pick(VERIFIERS), "verifier");
      // A verifier usually confirms; sometimes the PM was optimistic ("PM says met, validator says failed").
      const finding: CriterionStatus = status === "met" && outcome !== "all_met" && r.chance(0.35) ? "failed" : status;
      const vat = tick(ctx, 1, 15);
      const verifierActual = finding === status ? actual : "2 tests failing on a clean checkout";
      const verifierEvidence = `artifacts/${ctx.sessionId}/validator/${id}.log`;
      ctx.w.update(successCriteria, id, {
        verifierStatus: finding,
        verifierActual,
        verifierEvidence,
        verifierBy: verifier.label,
        verifierAt: vat,
        updatedAt: vat,
      });
      record(ctx, id, "verify", verifier, { fromStatus: status, toStatus: finding, actual: verifierActual, evidence: verifierEvidence });
      emit(ctx, EVENT_TYPES.criterionVerified, "criterion", id, verifier, { criterion: state.criterion, claimed: status, found: finding });
      Object.assign(state, { verifierStatus: finding, verifierActual, verifierEvidence });
    }
  }
  return saved.map((s) => s.state);
}

function pickStatus(ctx: SessionContext, outcome: CriteriaOutcome): CriterionStatus {
  if (outcome === "all_met") return ctx.r.chance(0.1) ? "blocked" : "met";
  if (outcome === "failing")
    return ctx.r.weighted([
      ["met", 3],
      ["failed", 3],
      ["blocked", 1],
      ["pending", 1],
    ] as const);
  return ctx.r.weighted([
    ["met", 5],
    ["pending", 3],
    ["failed", 1],
    ["blocked", 1],
  ] as const);
}

function record(
  ctx: SessionContext,
  criterionId: number,
  kind: "create" | "claim" | "verify",
  actor: Actor,
  change: { fromStatus?: CriterionStatus; toStatus?: CriterionStatus; actual?: string | null; evidence?: string | null; required?: boolean },
): void {
  ctx.w.insert(criterionUpdates, {
    criterionId,
    sessionId: ctx.sessionId,
    kind,
    ...change,
    actor: actor.label,
    principalId: actor.principalId,
    role: actor.role,
    at: new Date(ctx.clock),
  });
}
