import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { Proofpack } from "@/server/domain/task-machine";
import { createdAt, inList, nowMs, timestampMs } from "./columns";
import { MERGE_STATUSES, REVIEW_STATUSES, TASK_STATUSES, VERIFICATIONS } from "@/server/domain/vocabulary";
import { sessions } from "./sessions";

/** The two-phase-commit tasks (004). BAZINGA's task groups are tasks; `key` keeps their group id. */
export const tasks = sqliteTable(
  "tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    /** The caller's id for the task, unique within the session (e.g. `group_a`). */
    key: text("key").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    status: text("status", { enum: TASK_STATUSES }).notNull().default("pending"),
    assignee: text("assignee"),
    claimedBy: text("claimed_by"),
    claimedByPrincipal: text("claimed_by_principal"),
    claimedAt: timestampMs("claimed_at"),
    evidence: text("evidence", { mode: "json" }).$type<string[]>(),
    verifiedBy: text("verified_by"),
    verifiedByPrincipal: text("verified_by_principal"),
    verifiedAt: timestampMs("verified_at"),
    blockedBy: text("blocked_by"),
    blockedByPrincipal: text("blocked_by_principal"),
    blockedAt: timestampMs("blocked_at"),
    completedBy: text("completed_by"),
    completedAt: timestampMs("completed_at"),
    proofpack: text("proofpack", { mode: "json" }).$type<Proofpack>(),
    failures: text("failures", { mode: "json" }).$type<string[]>(),
    /** `verified` after a verify move; `none` when a status was reached without one (observe, imports). */
    verification: text("verification", { enum: VERIFICATIONS }),
    resetRequested: integer("reset_requested", { mode: "boolean" }).notNull().default(false),
    resetRequestedBy: text("reset_requested_by"),
    resetRequestedAt: timestampMs("reset_requested_at"),
    resetReason: text("reset_reason"),
    resetCount: integer("reset_count").notNull().default(0),
    revisionCount: integer("revision_count").notNull().default(0),
    complexity: integer("complexity"),
    tier: text("tier"),
    branch: text("branch"),
    mergeStatus: text("merge_status", { enum: MERGE_STATUSES }),
    lastReviewStatus: text("last_review_status", { enum: REVIEW_STATUSES }),
    /** The status as the orchestrator reported it, when it has its own vocabulary (e.g. `approved_pending_merge`). */
    sourceStatus: text("source_status"),
    /** What an orchestrator reported that no column holds: a word outside a column's values (BAZINGA's own, kept as given), speckit_task_ids. */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    itemCount: integer("item_count"),
    componentPath: text("component_path"),
    specializations: text("specializations", { mode: "json" }).$type<string[]>(),
    contextReferences: text("context_references", { mode: "json" }).$type<unknown[]>(),
    securitySensitive: integer("security_sensitive", { mode: "boolean" }).notNull().default(false),
    qaAttempts: integer("qa_attempts").notNull().default(0),
    tlReviewAttempts: integer("tl_review_attempts").notNull().default(0),
    reviewIteration: integer("review_iteration").notNull().default(1),
    noProgressCount: integer("no_progress_count").notNull().default(0),
    blockingIssuesCount: integer("blocking_issues_count").notNull().default(0),
    /** Compare-and-set: every write bumps it; a write that expected an older version is a conflict. */
    version: integer("version").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("tasks_session_id_key_idx").on(t.sessionId, t.key),
    index("tasks_session_id_status_idx").on(t.sessionId, t.status),
    // The approvals inbox: blocked tasks across sessions, reset requests first, oldest first. It
    // also holds the session and `blocked_by`, so the inbox's source and "blocked by" filters (and
    // their count) are answered from the index without reading a task's wide row.
    index("tasks_inbox_idx")
      .on(t.resetRequested, t.blockedAt, t.id, t.sessionId, t.blockedBy)
      .where(sql`${t.status} = 'blocked'`),
    // Analytics: completions nobody verified (few), without scanning every task.
    index("tasks_unverified_idx")
      .on(t.sessionId, t.completedAt, t.updatedAt, t.claimedBy, t.assignee)
      .where(sql`${t.status} = 'completed' AND ${t.verification} = 'none'`),
    check("tasks_status_check", sql`${t.status} in (${inList(TASK_STATUSES)})`),
    check("tasks_verification_check", sql`${t.verification} is null or ${t.verification} in (${inList(VERIFICATIONS)})`),
    check("tasks_complexity_check", sql`${t.complexity} is null or ${t.complexity} between 1 and 10`),
    check("tasks_counts_check", sql`${t.revisionCount} >= 0 and ${t.resetCount} >= 0 and ${t.version} >= 1`),
  ],
);

/** Append-only: one row per move (and per status an observed orchestrator reported). */
export const taskTransitions = sqliteTable(
  "task_transitions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    taskId: integer("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    /** The move (`claim`, `verify`, …), `create`, `report` (an observed status), or `import`. */
    move: text("move").notNull(),
    fromStatus: text("from_status", { enum: TASK_STATUSES }),
    toStatus: text("to_status", { enum: TASK_STATUSES }).notNull(),
    actor: text("actor").notNull(),
    principalId: text("principal_id"),
    role: text("role"),
    reason: text("reason"),
    evidence: text("evidence", { mode: "json" }).$type<string[]>(),
    proofpack: text("proofpack", { mode: "json" }).$type<Proofpack>(),
    failures: text("failures", { mode: "json" }).$type<string[]>(),
    verification: text("verification", { enum: VERIFICATIONS }),
    /** For verify/block: the claimant whose claim was judged (kept after a reset clears the task). */
    claimant: text("claimant"),
    at: createdAt("at"),
  },
  (t) => [
    index("task_transitions_task_id_idx").on(t.taskId, t.id),
    index("task_transitions_session_id_at_idx").on(t.sessionId, t.at),
    // Analytics: claims and judgments by time, covering what their counts read (task, session, actor).
    index("task_transitions_move_at_idx").on(t.move, t.at, t.taskId, t.sessionId, t.actor),
    // Analytics: the move that put a task into claimed / blocked, found from the move that took it out.
    index("task_transitions_claimed_idx")
      .on(t.taskId, t.id, t.move, t.at, t.actor, t.sessionId)
      .where(sql`${t.toStatus} = 'claimed'`),
    index("task_transitions_blocked_idx")
      .on(t.taskId, t.id, t.fromStatus, t.at, t.claimant, t.sessionId)
      .where(sql`${t.toStatus} = 'blocked'`),
  ],
);
