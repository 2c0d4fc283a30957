import { z } from "zod";
import { GOAL_SOURCES } from "@/server/domain/vocabulary";
import { Label, MAX_LABEL, MAX_TEXT, SessionId, Text } from "../schemas-common";

/** A row id (goals, attempts, branches…): a positive integer. */
export const Id = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** A 1-based position among siblings. */
export const Order = z.number().int().min(1).max(1_000_000);
/** Full or abbreviated git object id, SHA-1 or SHA-256. */
export const CommitSha = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{7,64}$/, "must be a git commit id (7 to 64 hex digits)");
export const RequiredText = z.string().trim().min(1, "must not be empty").max(MAX_TEXT);
export const FilePath = z.string().trim().min(1, "must not be empty").max(4000);

/** Most acceptance criteria a contract may hold. */
export const MAX_CRITERIA = 100;

export const CreateGoalInput = z.strictObject({
  sessionId: SessionId,
  goalText: RequiredText,
  /** Set for a sub-goal; the parent must be in the same session. */
  parentGoalId: Id.optional(),
  /** Position among its siblings; the next free number when omitted. */
  order: Order.optional(),
  /** `breakdown` when createdByAttemptId is given, `cli` otherwise. */
  source: z.enum(GOAL_SOURCES).optional(),
  /** The `breakdown` attempt on the parent goal that proposed this sub-goal. */
  createdByAttemptId: Id.optional(),
});
export type CreateGoalInput = z.infer<typeof CreateGoalInput>;

export const AddValidationStepInput = z.strictObject({
  goalId: Id,
  /** A shell command that exits 0 when the goal is achieved, e.g. `npm test`. */
  command: RequiredText,
  order: Order.optional(),
  /** Defaults to the goal's own source. */
  source: z.enum(GOAL_SOURCES).optional(),
});
export type AddValidationStepInput = z.infer<typeof AddValidationStepInput>;

/** The contract is checked by the domain's validateGoalContract, which names the rule each field breaks. */
export const SetGoalContractInput = z.strictObject({ goalId: Id, contract: z.unknown() });
export type SetGoalContractInput = z.infer<typeof SetGoalContractInput>;

const CriterionLimits = z.object({
  id: z.string().max(MAX_LABEL),
  description: z.string().max(4000).optional(),
  metric: z.string().max(MAX_LABEL).optional(),
  marker: z.string().max(MAX_LABEL).optional(),
  artifactPattern: z.string().max(4000).optional(),
});

/** Storage limits on a contract the domain already found valid. */
export const GoalContractLimits = z.object({
  goalText: Text,
  goalType: z.string().max(MAX_LABEL).nullish(),
  acceptanceCriteria: z.array(CriterionLimits).max(MAX_CRITERIA),
});
export type GoalContractLimits = z.infer<typeof GoalContractLimits>;

export const CreateBranchInput = z.strictObject({
  sessionId: SessionId,
  name: Label,
  parentBranchId: Id.optional(),
  parentCommitSha: CommitSha.optional(),
  /** Why it was made, e.g. `goal` or `attempt`. */
  reason: Label.optional(),
  createdByGoalId: Id.optional(),
});
export type CreateBranchInput = z.infer<typeof CreateBranchInput>;

export const CreateWorktreeInput = z.strictObject({
  branchId: Id,
  path: FilePath,
  startSha: CommitSha.optional(),
  reason: Label.optional(),
});
export type CreateWorktreeInput = z.infer<typeof CreateWorktreeInput>;

/** Only successful merges are recorded (003): a failed merge is the orchestrator's error to handle. */
export const RecordMergeInput = z.strictObject({
  fromBranchId: Id,
  fromCommitSha: CommitSha,
  toBranchId: Id,
  toCommitSha: CommitSha,
  resultCommitSha: CommitSha,
});
export type RecordMergeInput = z.infer<typeof RecordMergeInput>;

export const EvaluateGoalGateInput = z.strictObject({ attemptId: Id });
export type EvaluateGoalGateInput = z.infer<typeof EvaluateGoalGateInput>;

export const GoalRef = z.strictObject({ goalId: Id });
export type GoalRef = z.infer<typeof GoalRef>;

export const GetGoalTreeInput = z.strictObject({ sessionId: SessionId });
export type GetGoalTreeInput = z.infer<typeof GetGoalTreeInput>;
