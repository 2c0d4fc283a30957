import { z } from "zod";
import { ATTEMPT_RESULT_STATUSES, ATTEMPT_TYPES } from "@/server/domain/vocabulary";
import { CommitSha, FilePath, Id } from "../goal/schemas";
import { Label, MAX_LABEL, MAX_TEXT, Text } from "../schemas-common";

export const MAX_TOOLS = 200;
export const MAX_CALLS_PER_BATCH = 1000;
/** Characters of all inputs and outputs in one batch, so one call cannot hold the write lock for long. */
export const MAX_BATCH_CHARS = 10_000_000;

export const ToolName = Label;
export const ToolSpec = z.union([ToolName, z.strictObject({ name: ToolName, description: z.string().max(4000).optional() })]);
export type ToolSpec = z.infer<typeof ToolSpec>;

export const StartAttemptInput = z.strictObject({
  goalId: Id,
  /** `implementation` (the default) tries to meet the goal; `breakdown` splits it into sub-goals. */
  attemptType: z.enum(ATTEMPT_TYPES).optional(),
  model: Label.optional(),
  prompt: Text.optional(),
  startCommitSha: CommitSha.optional(),
  worktreeId: Id.optional(),
  /** Tools made available to the attempt, by name; created in the session on first use. */
  tools: z.array(ToolSpec).max(MAX_TOOLS).optional(),
});
export type StartAttemptInput = z.infer<typeof StartAttemptInput>;

// Its size is checked with the whole call below, so a too-large input gets that message.
const ToolInput = z.union([Text, z.record(z.string(), z.unknown())]);

export const ToolCallInput = z
  .strictObject({
    tool: ToolName,
    /** The call's arguments: a JSON object, or raw text. */
    input: ToolInput.optional(),
    output: Text.optional(),
  })
  .refine((call) => serializedLength(call.input) <= MAX_TEXT, { path: ["input"], message: `must be at most ${MAX_TEXT} characters as JSON` });
export type ToolCallInput = z.infer<typeof ToolCallInput>;

export const RecordToolCallsInput = z
  .strictObject({ attemptId: Id, calls: z.array(ToolCallInput).min(1).max(MAX_CALLS_PER_BATCH) })
  .refine((batch) => batch.calls.reduce((sum, call) => sum + serializedLength(call.input) + (call.output?.length ?? 0), 0) <= MAX_BATCH_CHARS, {
    path: ["calls"],
    message: `inputs and outputs of one batch must total at most ${MAX_BATCH_CHARS} characters: send smaller batches`,
  });
export type RecordToolCallsInput = z.infer<typeof RecordToolCallsInput>;

const MetricName = z.string().trim().min(1).max(MAX_LABEL);

export const FinishAttemptInput = z.strictObject({
  attemptId: Id,
  status: z.enum(ATTEMPT_RESULT_STATUSES),
  endCommitSha: CommitSha.optional(),
  diff: Text.optional(),
  statusDetail: Text.optional(),
  /** Goal-gate evidence: metric values (finite numbers); they win over METRIC lines in `output`. */
  metrics: z
    .record(MetricName, z.number())
    .refine((m) => Object.keys(m).length <= 500, "at most 500 metrics")
    .optional(),
  /** Marker keys such as `METRIC:baseline_accuracy` or `FINDING`. */
  markers: z.array(z.string().trim().min(1).max(MAX_LABEL)).max(1000).optional(),
  /** Paths of the files the attempt produced. */
  artifacts: z.array(FilePath).max(1000).optional(),
  /** Findings a verifier confirmed. */
  verifiedFindings: z.number().int().min(0).max(1_000_000).optional(),
  /** Raw output; its marker lines (`[METRIC:x] 0.85`) count as evidence. */
  output: Text.optional(),
});
export type FinishAttemptInput = z.infer<typeof FinishAttemptInput>;

export const RecordValidationRunInput = z.strictObject({
  attemptId: Id,
  validationStepId: Id,
  exitCode: z.number().int().min(-2_147_483_648).max(2_147_483_647),
  output: Text.optional(),
});
export type RecordValidationRunInput = z.infer<typeof RecordValidationRunInput>;

export const RecordTrustScoreInput = z.strictObject({
  attemptId: Id,
  /** 0 to 100; the trust gate passes at 80. */
  score: z.number().min(0).max(100),
  notes: Text.optional(),
});
export type RecordTrustScoreInput = z.infer<typeof RecordTrustScoreInput>;

export const GetAttemptInput = z.strictObject({
  attemptId: Id,
  /** The last tool-call order already seen; the page starts after it. */
  cursor: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(500).optional(),
});
export type GetAttemptInput = z.infer<typeof GetAttemptInput>;

/** Length as stored; a value JSON cannot hold (a cycle, a BigInt) counts as too long. */
function serializedLength(input: unknown): number {
  if (input === undefined) return 0;
  if (typeof input === "string") return input.length;
  try {
    return JSON.stringify(input).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
