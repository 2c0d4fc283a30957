import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, inList } from "./columns";
import { ATTEMPT_RESULT_STATUSES, ATTEMPT_TYPES, GOAL_SOURCES } from "@/server/domain/vocabulary";
import { sessions } from "./sessions";

// The append-only goal/attempt model of shots-on-goal (003), with its column names. Every table
// has `id` and `timestamp` (creation time); rows are never updated (triggers).

export const goals = sqliteTable(
  "goals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    goalText: text("goal_text").notNull(),
    parentGoalId: integer("parent_goal_id").references((): AnySQLiteColumn => goals.id, { onDelete: "cascade" }),
    order: integer("order"),
    source: text("source", { enum: GOAL_SOURCES }).notNull().default("cli"),
    createdByAttemptId: integer("created_by_attempt_id").references((): AnySQLiteColumn => attempts.id),
  },
  (t) => [
    index("goals_session_id_idx").on(t.sessionId, t.id),
    index("goals_parent_goal_id_idx").on(t.parentGoalId),
    index("goals_created_by_attempt_id_idx")
      .on(t.createdByAttemptId)
      .where(sql`${t.createdByAttemptId} IS NOT NULL`),
    check("goals_source_check", sql`${t.source} in (${inList(GOAL_SOURCES)})`),
  ],
);

export const validationSteps = sqliteTable(
  "validation_steps",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    goalId: integer("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    order: integer("order").notNull(),
    command: text("command").notNull(),
    source: text("source", { enum: GOAL_SOURCES }).notNull().default("cli"),
  },
  (t) => [index("validation_steps_goal_id_idx").on(t.goalId, t.order)],
);

export const branches = sqliteTable(
  "branches",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    parentBranchId: integer("parent_branch_id").references((): AnySQLiteColumn => branches.id),
    parentCommitSha: text("parent_commit_sha"),
    reason: text("reason"),
    createdByGoalId: integer("created_by_goal_id").references(() => goals.id),
  },
  (t) => [
    index("branches_session_id_idx").on(t.sessionId),
    index("branches_parent_branch_id_idx")
      .on(t.parentBranchId)
      .where(sql`${t.parentBranchId} IS NOT NULL`),
    index("branches_created_by_goal_id_idx")
      .on(t.createdByGoalId)
      .where(sql`${t.createdByGoalId} IS NOT NULL`),
  ],
);

export const worktrees = sqliteTable(
  "worktrees",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    branchId: integer("branch_id")
      .notNull()
      .references(() => branches.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    startSha: text("start_sha"),
    reason: text("reason"),
  },
  (t) => [index("worktrees_branch_id_idx").on(t.branchId)],
);

export const attempts = sqliteTable(
  "attempts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    goalId: integer("goal_id")
      .notNull()
      .references((): AnySQLiteColumn => goals.id, { onDelete: "cascade" }),
    worktreeId: integer("worktree_id").references(() => worktrees.id),
    startCommitSha: text("start_commit_sha"),
    prompt: text("prompt"),
    model: text("model"),
    attemptType: text("attempt_type", { enum: ATTEMPT_TYPES }).notNull().default("implementation"),
  },
  (t) => [
    index("attempts_goal_id_idx").on(t.goalId, t.id),
    index("attempts_model_idx").on(t.model),
    index("attempts_worktree_id_idx")
      .on(t.worktreeId)
      .where(sql`${t.worktreeId} IS NOT NULL`),
    check("attempts_attempt_type_check", sql`${t.attemptType} in (${inList(ATTEMPT_TYPES)})`),
  ],
);

export const tools = sqliteTable(
  "tools",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
  },
  (t) => [uniqueIndex("tools_session_id_name_idx").on(t.sessionId, t.name)],
);

export const attemptTools = sqliteTable(
  "attempt_tools",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    attemptId: integer("attempt_id")
      .notNull()
      .references(() => attempts.id, { onDelete: "cascade" }),
    toolId: integer("tool_id")
      .notNull()
      .references(() => tools.id, { onDelete: "cascade" }),
  },
  (t) => [uniqueIndex("attempt_tools_attempt_id_tool_id_idx").on(t.attemptId, t.toolId), index("attempt_tools_tool_id_idx").on(t.toolId)],
);

/** The end state of an attempt, plus what it reports for the goal gate. One per attempt. */
export const attemptResults = sqliteTable(
  "attempt_results",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    attemptId: integer("attempt_id")
      .notNull()
      .references(() => attempts.id, { onDelete: "cascade" }),
    endCommitSha: text("end_commit_sha"),
    diff: text("diff"),
    status: text("status", { enum: ATTEMPT_RESULT_STATUSES }).notNull(),
    statusDetail: text("status_detail"),
    metrics: text("metrics", { mode: "json" }).$type<Record<string, number>>(),
    markers: text("markers", { mode: "json" }).$type<string[]>(),
    artifacts: text("artifacts", { mode: "json" }).$type<string[]>(),
    verifiedFindings: integer("verified_findings"),
    output: text("output"),
  },
  (t) => [
    uniqueIndex("attempt_results_attempt_id_idx").on(t.attemptId),
    index("attempt_results_status_idx").on(t.status),
    check("attempt_results_status_check", sql`${t.status} in (${inList(ATTEMPT_RESULT_STATUSES)})`),
  ],
);

export const toolCalls = sqliteTable(
  "tool_calls",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    attemptId: integer("attempt_id")
      .notNull()
      .references(() => attempts.id, { onDelete: "cascade" }),
    order: integer("order").notNull(),
    toolId: integer("tool_id").references(() => tools.id, { onDelete: "cascade" }),
    toolName: text("tool_name").notNull(),
    input: text("input"),
    output: text("output"),
  },
  (t) => [
    index("tool_calls_attempt_id_order_idx").on(t.attemptId, t.order),
    index("tool_calls_tool_id_idx")
      .on(t.toolId)
      .where(sql`${t.toolId} IS NOT NULL`),
  ],
);

export const validationRuns = sqliteTable(
  "validation_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    validationStepId: integer("validation_step_id")
      .notNull()
      .references(() => validationSteps.id, { onDelete: "cascade" }),
    attemptResultId: integer("attempt_result_id")
      .notNull()
      .references(() => attemptResults.id, { onDelete: "cascade" }),
    exitCode: integer("exit_code").notNull(),
    output: text("output"),
  },
  (t) => [index("validation_runs_attempt_result_id_idx").on(t.attemptResultId), index("validation_runs_validation_step_id_idx").on(t.validationStepId)],
);

export const merges = sqliteTable(
  "merges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    timestamp: createdAt("timestamp"),
    fromBranchId: integer("from_branch_id")
      .notNull()
      .references(() => branches.id, { onDelete: "cascade" }),
    fromCommitSha: text("from_commit_sha").notNull(),
    toBranchId: integer("to_branch_id")
      .notNull()
      .references(() => branches.id, { onDelete: "cascade" }),
    toCommitSha: text("to_commit_sha").notNull(),
    resultCommitSha: text("result_commit_sha").notNull(),
  },
  (t) => [index("merges_from_branch_id_idx").on(t.fromBranchId), index("merges_to_branch_id_idx").on(t.toBranchId)],
);
