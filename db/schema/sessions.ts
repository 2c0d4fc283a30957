import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { createdAt, inList, nowMs, timestampMs } from "./columns";
import { ENFORCEMENTS, SESSION_SOURCES, SESSION_STATUSES } from "@/server/domain/vocabulary";

/** One orchestration run (BAZINGA session, shots-on-goal session, or any API client's). */
export const sessions = sqliteTable(
  "sessions",
  {
    /** Caller-given (e.g. `bazinga_20250112_143022`) or generated. */
    id: text("id").primaryKey(),
    requirements: text("requirements"),
    mode: text("mode"),
    status: text("status", { enum: SESSION_STATUSES }).notNull().default("active"),
    initialBranch: text("initial_branch"),
    repoPath: text("repo_path"),
    models: text("models", { mode: "json" }).$type<Record<string, string>>(),
    flags: text("flags", { mode: "json" }).$type<Record<string, unknown>>(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    source: text("source", { enum: SESSION_SOURCES }).notNull().default("api"),
    enforcement: text("enforcement", { enum: ENFORCEMENTS }).notNull().default("enforce"),
    startedAt: timestampMs("started_at").notNull().default(nowMs),
    endedAt: timestampMs("ended_at"),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
    // Rollups kept current by triggers on tasks and success_criteria (any writer, raw SQL included),
    // so lists and progress bars never count rows.
    tasksTotal: integer("tasks_total").notNull().default(0),
    tasksPending: integer("tasks_pending").notNull().default(0),
    tasksInProgress: integer("tasks_in_progress").notNull().default(0),
    tasksClaimed: integer("tasks_claimed").notNull().default(0),
    tasksVerified: integer("tasks_verified").notNull().default(0),
    tasksBlocked: integer("tasks_blocked").notNull().default(0),
    tasksCompleted: integer("tasks_completed").notNull().default(0),
    tasksUnverified: integer("tasks_unverified").notNull().default(0),
    resetRequests: integer("reset_requests").notNull().default(0),
    criteriaTotal: integer("criteria_total").notNull().default(0),
    criteriaRequired: integer("criteria_required").notNull().default(0),
    criteriaRequiredMet: integer("criteria_required_met").notNull().default(0),
    // The completion gate held by the database (db/completion-gate.ts), kept by triggers: completion
    // checks of this session with an id up to this one are stale (something the gate reads changed
    // after them, or a completion used them); it only grows.
    checksStaleThrough: integer("checks_stale_through").notNull().default(0),
    /** The completion check the session's latest completion rested on; null if it never completed since migration 0008. */
    completionCheckId: integer("completion_check_id"),
  },
  (t) => [
    index("sessions_started_at_idx").on(t.startedAt, t.id),
    index("sessions_status_started_at_idx").on(t.status, t.startedAt, t.id),
    index("sessions_source_started_at_idx").on(t.source, t.startedAt, t.id),
    // Both filters at once: otherwise one of them is checked row by row along the other's index.
    index("sessions_status_source_started_at_idx").on(t.status, t.source, t.startedAt, t.id),
    index("sessions_blocked_started_at_idx")
      .on(t.startedAt, t.id)
      .where(sql`${t.tasksBlocked} > 0`),
    // Analytics' criteria rate reads these four columns of the sessions with a required criterion.
    index("sessions_criteria_idx")
      .on(t.startedAt, t.source, t.criteriaRequired, t.criteriaRequiredMet)
      .where(sql`${t.criteriaRequired} > 0`),
    check("sessions_status_check", sql`${t.status} in (${inList(SESSION_STATUSES)})`),
    check("sessions_source_check", sql`${t.source} in (${inList(SESSION_SOURCES)})`),
    check("sessions_enforcement_check", sql`${t.enforcement} in (${inList(ENFORCEMENTS)})`),
  ],
);
