import { z } from "zod";
import { TASK_MOVES, TASK_STATUSES } from "@/server/domain/task-machine";
import { MERGE_STATUSES, REVIEW_STATUSES } from "@/server/domain/vocabulary";
import { JsonArray, JsonObject, Label, SessionId, Text } from "../schemas-common";

export const TaskKey = Label;

/** The BAZINGA task-group fields a caller may set besides the machine's own. */
const TaskDetails = z.object({
  title: Label.optional(),
  description: Text.nullish(),
  assignee: Label.nullish(),
  complexity: z.number().int().min(1).max(10).nullish(),
  tier: Label.nullish(),
  branch: Label.nullish(),
  mergeStatus: z.enum(MERGE_STATUSES).nullish(),
  lastReviewStatus: z.enum(REVIEW_STATUSES).nullish(),
  revisionCount: z.number().int().min(0).max(1_000_000).optional(),
  itemCount: z.number().int().min(0).max(1_000_000).nullish(),
  componentPath: Label.nullish(),
  specializations: z.array(z.string().max(1000)).max(100).nullish(),
  contextReferences: JsonArray.nullish(),
  securitySensitive: z.boolean().optional(),
  qaAttempts: z.number().int().min(0).max(1_000_000).optional(),
  tlReviewAttempts: z.number().int().min(0).max(1_000_000).optional(),
  reviewIteration: z.number().int().min(1).max(1_000_000).optional(),
  noProgressCount: z.number().int().min(0).max(1_000_000).optional(),
  blockingIssuesCount: z.number().int().min(0).max(1_000_000).optional(),
  /** Fields without a column (an unknown review status word, speckit_task_ids…); a report merges them into the task's. */
  metadata: JsonObject.nullish(),
});
export type TaskDetails = z.infer<typeof TaskDetails>;

export const CreateTaskInput = TaskDetails.extend({
  sessionId: SessionId,
  key: TaskKey,
  title: Label,
}).strict();
export type CreateTaskInput = z.infer<typeof CreateTaskInput>;

export const Proofpack = z
  .object({
    verdict: z.enum(["PASSED", "BLOCKED"]),
    checks: z.array(z.object({ name: Label, passed: z.boolean(), detail: Text.optional() }).strict()).max(500),
    notes: Text.optional(),
    path: z.string().max(2000).optional(),
  })
  .strict();

export const MoveTaskInput = z
  .object({
    sessionId: SessionId,
    key: TaskKey,
    move: z.enum(TASK_MOVES),
    evidence: z.array(z.string().max(2000)).max(200).optional(),
    proofpack: Proofpack.optional(),
    failures: z.array(z.string().max(4000)).max(200).optional(),
    reason: z.string().max(4000).optional(),
    /** Compare-and-set: refuse with CONFLICT if the task changed since the caller read this version. */
    expectedVersion: z.number().int().min(1).optional(),
  })
  .strict();
export type MoveTaskInput = z.infer<typeof MoveTaskInput>;

/** A move's procedure input (`task.claim`, the MCP tool `claim_task`, …): the move is the procedure's name, not a field. */
export const TaskMoveInput = MoveTaskInput.omit({ move: true });
export type TaskMoveInput = z.infer<typeof TaskMoveInput>;

/** An orchestrator reporting a status in its own words (BAZINGA's `update-task-group --status`). */
export const ReportTaskInput = TaskDetails.extend({
  sessionId: SessionId,
  key: TaskKey,
  status: z.enum(TASK_STATUSES).optional(),
  /** The orchestrator's own status word, kept beside the mapped one (e.g. `approved_pending_merge`). */
  sourceStatus: Label.optional(),
}).strict();
export type ReportTaskInput = z.infer<typeof ReportTaskInput>;

export const TaskRef = z.object({ sessionId: SessionId, key: TaskKey }).strict();
export type TaskRef = z.infer<typeof TaskRef>;

/** A session's whole board (`task.board`). */
export const TaskBoardInput = z.object({ sessionId: SessionId }).strict();
export type TaskBoardInput = z.infer<typeof TaskBoardInput>;

export const ListTasksInput = z.object({ sessionId: SessionId, status: z.enum(TASK_STATUSES).optional() }).strict();
export type ListTasksInput = z.infer<typeof ListTasksInput>;
