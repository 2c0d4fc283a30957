/**
 * The two-phase-commit task machine (004): a task is done only after someone other than its
 * claimant verified it with evidence. Every rule about task states lives here; the database
 * triggers mirror `LEGAL_EDGES` so raw SQL cannot skip it either.
 */
import { type Actor, type Role, comparablePrincipal } from "./actors";
import { ForbiddenTransitionError, RoleForbiddenError, ValidationError } from "./errors";
import { type Action, PERMISSIONS, authorize } from "./permissions";

export const TASK_STATUSES = ["pending", "in_progress", "claimed", "verified", "blocked", "completed"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TASK_MOVES = ["start", "claim", "verify", "block", "complete", "request_reset", "approve_reset", "decline_reset"] as const;
export type TaskMove = (typeof TASK_MOVES)[number];

export type Enforcement = "enforce" | "observe";
export type Verification = "verified" | "none";

export interface ProofCheck {
  name: string;
  passed: boolean;
  detail?: string;
}

export interface Proofpack {
  verdict: "PASSED" | "BLOCKED";
  checks: ProofCheck[];
  notes?: string;
  /** Where the full proofpack artifact lives, if it is a file. */
  path?: string;
}

/** What the machine needs to know about a task to decide a move. */
export interface TaskState {
  status: TaskStatus;
  claimedBy: string | null;
  claimedByPrincipal: string | null;
  resetRequested: boolean;
}

export interface MoveInput {
  evidence?: string[];
  proofpack?: Proofpack;
  failures?: string[];
  reason?: string;
}

interface MoveRule {
  from: readonly TaskStatus[];
  to: TaskStatus;
  roles: readonly Role[];
  /** The actor must not be the task's claimant (by principal or by agent label). */
  notClaimant?: boolean;
}

/** The permission each move needs (permissions.ts holds who may take it). */
export const MOVE_ACTIONS = {
  start: "task.start",
  claim: "task.claim",
  verify: "task.verify",
  block: "task.block",
  complete: "task.complete",
  request_reset: "task.requestReset",
  approve_reset: "task.approveReset",
  decline_reset: "task.declineReset",
} as const satisfies Record<TaskMove, Action>;

const edge = (move: TaskMove, from: readonly TaskStatus[], to: TaskStatus, notClaimant?: true): MoveRule => ({
  from,
  to,
  roles: PERMISSIONS[MOVE_ACTIONS[move]].roles,
  ...(notClaimant ? { notClaimant } : {}),
});

/** Each move, from where, to where; its roles come from the permission table. `admin` may make any move (still never as the claimant). */
export const MOVE_RULES: Readonly<Record<TaskMove, MoveRule>> = {
  start: edge("start", ["pending"], "in_progress"),
  claim: edge("claim", ["pending", "in_progress"], "claimed"),
  verify: edge("verify", ["claimed"], "verified", true),
  block: edge("block", ["claimed"], "blocked", true),
  complete: edge("complete", ["verified"], "completed"),
  request_reset: edge("request_reset", ["blocked"], "blocked"),
  approve_reset: edge("approve_reset", ["blocked"], "pending"),
  // The task stays blocked; only the pending request is closed (with its reason, in task_transitions).
  decline_reset: edge("decline_reset", ["blocked"], "blocked"),
};

/** Every status change the machine allows, as `from->to`. The triggers are generated from this list. */
export const LEGAL_EDGES: readonly (readonly [TaskStatus, TaskStatus])[] = (Object.values(MOVE_RULES) as MoveRule[])
  .flatMap((rule) => rule.from.map((from) => [from, rule.to] as const))
  .filter(([from, to]) => from !== to);

export function isLegalEdge(from: TaskStatus, to: TaskStatus): boolean {
  return LEGAL_EDGES.some(([f, t]) => f === from && t === to);
}

/** The move that would take a task from `from` to `to`, for refusal messages that name the move to use. */
export function moveForEdge(from: TaskStatus, to: TaskStatus): TaskMove | undefined {
  return TASK_MOVES.find((move) => MOVE_RULES[move].to === to && MOVE_RULES[move].from.includes(from));
}

/** The moves that lead to `to` from any state, e.g. `completed` → `complete`. */
export function movesInto(to: TaskStatus): TaskMove[] {
  return TASK_MOVES.filter((move) => MOVE_RULES[move].to === to && !MOVE_RULES[move].from.includes(to));
}

export function isTaskStatus(value: string): value is TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}

/** "Never the claimant": the same agent label, or the same (non-operator) principal. */
export function isClaimant(task: Pick<TaskState, "claimedBy" | "claimedByPrincipal">, actor: Actor): boolean {
  if (task.claimedBy !== null && task.claimedBy === actor.label) return true;
  const principal = comparablePrincipal(actor);
  return principal !== null && task.claimedByPrincipal === principal;
}

export interface MoveOutcome {
  move: TaskMove;
  from: TaskStatus;
  to: TaskStatus;
  /** Column changes the move makes, besides `status`. */
  patch: TaskPatch;
  reason: string | null;
}

export interface TaskPatch {
  claimedBy?: string | null;
  claimedByPrincipal?: string | null;
  claimedAt?: Date | null;
  evidence?: string[] | null;
  verifiedBy?: string | null;
  verifiedByPrincipal?: string | null;
  verifiedAt?: Date | null;
  blockedBy?: string | null;
  blockedByPrincipal?: string | null;
  blockedAt?: Date | null;
  completedBy?: string | null;
  completedAt?: Date | null;
  proofpack?: Proofpack | null;
  failures?: string[] | null;
  verification?: Verification | null;
  resetRequested?: boolean;
  resetRequestedBy?: string | null;
  resetRequestedAt?: Date | null;
  resetReason?: string | null;
  resetCount?: "increment";
}

/**
 * Decide a move: checks the state edge, the actor's role, the claimant rule and the move's
 * required input. Returns the new status and the columns to write, or throws a DomainError that
 * names the rule.
 */
export function applyMove(task: TaskState, move: TaskMove, actor: Actor, input: MoveInput = {}, now = new Date()): MoveOutcome {
  const rule = MOVE_RULES[move];
  if (!rule.from.includes(task.status)) {
    throw new ForbiddenTransitionError(
      `task.${move}_from_${task.status}`,
      `cannot ${label(move)} a ${task.status} task: ${label(move)} is allowed only from ${rule.from.join(" or ")}${hint(task.status, move)}`,
    );
  }
  authorize(actor, MOVE_ACTIONS[move], `${label(move)} a task`);
  if (rule.notClaimant && isClaimant(task, actor)) {
    throw new RoleForbiddenError(`task.claimant_cannot_${move}`, `${actor.label} claimed this task and cannot ${label(move)} it: a different verifier must`);
  }
  const patch = patchFor(move, task, actor, input, now);
  const reason = REASON_REQUIRED.has(move) ? requireReason(input.reason) : input.reason?.trim() || null;
  return { move, from: task.status, to: rule.to, patch, reason };
}

/** Moves whose history needs a why: a reset asked for, granted or refused. */
const REASON_REQUIRED: ReadonlySet<TaskMove> = new Set(["request_reset", "approve_reset", "decline_reset"]);

function patchFor(move: TaskMove, task: TaskState, actor: Actor, input: MoveInput, now: Date): TaskPatch {
  const principal = comparablePrincipal(actor);
  switch (move) {
    case "start":
      return {};
    case "claim":
      return {
        claimedBy: actor.label,
        claimedByPrincipal: principal,
        claimedAt: now,
        evidence: validateEvidence(input.evidence),
      };
    case "verify": {
      const proofpack = requireProofpack(input.proofpack, "PASSED");
      return {
        verifiedBy: actor.label,
        verifiedByPrincipal: principal,
        verifiedAt: now,
        proofpack,
        failures: null,
        verification: "verified",
      };
    }
    case "block": {
      const failures = requireFailures(input.failures);
      const proofpack = input.proofpack === undefined ? null : requireProofpack(input.proofpack, "BLOCKED");
      return { blockedBy: actor.label, blockedByPrincipal: principal, blockedAt: now, proofpack, failures };
    }
    case "complete":
      return { completedBy: actor.label, completedAt: now };
    case "request_reset":
      if (task.resetRequested) {
        throw new ForbiddenTransitionError("task.reset_already_requested", "a reset of this task was already requested and awaits approval");
      }
      return { resetRequested: true, resetRequestedBy: actor.label, resetRequestedAt: now, resetReason: requireReason(input.reason) };
    case "approve_reset":
      // The failed attempt stays in task_transitions (the block move kept claimant, failures and proofpack).
      return {
        claimedBy: null,
        claimedByPrincipal: null,
        claimedAt: null,
        evidence: null,
        verifiedBy: null,
        verifiedByPrincipal: null,
        verifiedAt: null,
        blockedBy: null,
        blockedByPrincipal: null,
        blockedAt: null,
        proofpack: null,
        failures: null,
        verification: null,
        resetRequested: false,
        resetRequestedBy: null,
        resetRequestedAt: null,
        resetReason: null,
        resetCount: "increment",
      };
    case "decline_reset":
      if (!task.resetRequested) {
        throw new ForbiddenTransitionError(
          "task.no_reset_request",
          "this blocked task has no pending reset request to decline (an agent or orchestrator asks with request-reset)",
        );
      }
      requireReason(input.reason);
      return { resetRequested: false, resetRequestedBy: null, resetRequestedAt: null, resetReason: null };
  }
}

const MAX_REASON = 4000;

function requireReason(reason: string | undefined): string {
  const trimmed = reason?.trim() ?? "";
  if (trimmed.length === 0) throw new ValidationError("reason", "task.reason_required", "a reason is required");
  if (trimmed.length > MAX_REASON) throw new ValidationError("reason", "task.reason_too_long", `at most ${MAX_REASON} characters`);
  return trimmed;
}

function validateEvidence(evidence: string[] | undefined): string[] | null {
  if (evidence === undefined || evidence.length === 0) return null;
  evidence.forEach((item, i) => {
    if (item.trim().length === 0) throw new ValidationError(`evidence[${i}]`, "task.evidence_empty", "an evidence entry must not be empty");
  });
  return evidence.map((item) => item.trim());
}

function requireFailures(failures: string[] | undefined): string[] {
  const cleaned = (failures ?? []).map((f) => f.trim());
  if (cleaned.length === 0) {
    throw new ValidationError("failures", "task.block_requires_failures", "blocking a task needs at least one failure");
  }
  const empty = cleaned.findIndex((f) => f.length === 0);
  if (empty >= 0) throw new ValidationError(`failures[${empty}]`, "task.failure_empty", "a failure must not be empty");
  return cleaned;
}

function requireProofpack(proofpack: Proofpack | undefined, verdict: Proofpack["verdict"]): Proofpack {
  if (proofpack === undefined) {
    throw new ValidationError("proofpack", "task.verify_requires_proofpack", "verifying a task needs a proofpack with verdict PASSED");
  }
  if (proofpack.verdict !== verdict) {
    throw new ValidationError("proofpack.verdict", `task.proofpack_verdict_${verdict.toLowerCase()}`, `must be ${verdict}, got ${String(proofpack.verdict)}`);
  }
  if (verdict === "PASSED" && proofpack.checks.length === 0) {
    // A PASSED verdict with nothing checked is a claim, not evidence.
    throw new ValidationError("proofpack.checks", "task.proofpack_no_checks", "a PASSED proofpack needs at least one check");
  }
  proofpack.checks.forEach((check, i) => {
    if (check.name.trim().length === 0) {
      throw new ValidationError(`proofpack.checks[${i}].name`, "task.proofpack_check_name", "a check needs a name");
    }
  });
  const failed = proofpack.checks.findIndex((check) => !check.passed);
  if (verdict === "PASSED" && failed >= 0) {
    throw new ValidationError(
      `proofpack.checks[${failed}]`,
      "task.proofpack_failed_check",
      `check "${proofpack.checks[failed]?.name}" failed, so the verdict cannot be PASSED: block the task instead`,
    );
  }
  return proofpack;
}

function label(move: TaskMove): string {
  return move.replace("_", " ");
}

function hint(from: TaskStatus, move: TaskMove): string {
  const next = TASK_MOVES.filter((m) => MOVE_RULES[m].from.includes(from) && m !== move);
  return next.length > 0 ? ` (from ${from} the allowed moves are: ${next.join(", ")})` : ` (${from} is final)`;
}

/**
 * An `observe` session accepts a status its orchestrator reports even when it skips the machine,
 * and records it as what it is: reaching verified or completed without a verify move is an
 * unverified completion (`verification = 'none'`). A report is never a verify move, so even the
 * on-machine claimed → verified report is unverified, and so is completing a task whose
 * verification was not a real verify move.
 */
export function observeReportedStatus(
  task: Pick<TaskState, "status"> & { verification: Verification | null },
  reported: TaskStatus,
): { to: TaskStatus; verification: Verification | null; unverified: boolean; onMachine: boolean } {
  const onMachine = task.status === reported || isLegalEdge(task.status, reported);
  const changes = task.status !== reported;
  const reachesDone = reported === "verified" || reported === "completed";
  const skipsVerify = changes && reachesDone && (reported === "verified" || task.verification !== "verified");
  if (onMachine && !skipsVerify) {
    return { to: reported, verification: task.verification, unverified: false, onMachine };
  }
  return { to: reported, verification: "none", unverified: reachesDone, onMachine };
}

/**
 * The refusal for a raw status report in an `enforce` session: names the move to use instead.
 */
export function refuseReportedStatus(from: TaskStatus, to: TaskStatus): ForbiddenTransitionError {
  const direct = moveForEdge(from, to);
  const advice = direct
    ? `use the "${direct.replace("_", "-")}" move, which checks who you are and what it needs`
    : `this session enforces the task machine: ${from} → ${to} is not a move (from ${from}: ${
        TASK_MOVES.filter((m) => MOVE_RULES[m].from.includes(from)).join(", ") || "none"
      })`;
  return new ForbiddenTransitionError(`task.status_${from}_to_${to}`, `cannot set status ${from} → ${to} directly: ${advice}`);
}
