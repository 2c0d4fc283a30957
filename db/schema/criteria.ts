import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, inList, nowMs, timestampMs } from "./columns";
import { COMPLETION_CHECK_SOURCES, CRITERION_STATUSES, CRITERION_UPDATE_KINDS } from "@/server/domain/vocabulary";
import { sessions } from "./sessions";

/** A session's success criteria (000). `criterion` and `session_id` never change (trigger). */
export const successCriteria = sqliteTable(
  "success_criteria",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    criterion: text("criterion").notNull(),
    /** The claimant's (PM's) status. */
    status: text("status", { enum: CRITERION_STATUSES }).notNull().default("pending"),
    actual: text("actual"),
    evidence: text("evidence"),
    requiredForCompletion: integer("required_for_completion", { mode: "boolean" }).notNull().default(true),
    /** BAZINGA's ordering of the criteria (1 first); the list reads in this order, unset last. */
    priority: integer("priority"),
    /** Fields a BAZINGA criterion carried that have no column of their own, kept as given. */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    supersedesId: integer("supersedes_id").references((): AnySQLiteColumn => successCriteria.id),
    /** Migrated from a `pm` state snapshot of a session that predates the criteria table. */
    migrated: integer("migrated", { mode: "boolean" }).notNull().default(false),
    /** A verifier's finding, recorded beside the claim; the completion gate trusts it over the claim. */
    verifierStatus: text("verifier_status", { enum: CRITERION_STATUSES }),
    verifierActual: text("verifier_actual"),
    verifierEvidence: text("verifier_evidence"),
    verifierBy: text("verifier_by"),
    verifierAt: timestampMs("verifier_at"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("success_criteria_session_id_criterion_idx").on(t.sessionId, t.criterion),
    index("success_criteria_session_id_status_idx").on(t.sessionId, t.status),
    index("success_criteria_status_idx").on(t.status),
    index("success_criteria_supersedes_id_idx")
      .on(t.supersedesId)
      .where(sql`${t.supersedesId} IS NOT NULL`),
    // Analytics: the most common blocked and failed criteria, by the claim or the verifier's finding.
    index("success_criteria_not_met_idx")
      .on(t.criterion, t.status, t.verifierStatus, t.sessionId)
      .where(sql`${t.status} IN ('blocked', 'failed') OR ${t.verifierStatus} IN ('blocked', 'failed')`),
    check("success_criteria_status_check", sql`${t.status} in (${inList(CRITERION_STATUSES)})`),
    check("success_criteria_verifier_status_check", sql`${t.verifierStatus} is null or ${t.verifierStatus} in (${inList(CRITERION_STATUSES)})`),
  ],
);

/** Append-only: every change to a criterion, with who made it and with what evidence. */
export const criterionUpdates = sqliteTable(
  "criterion_updates",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    criterionId: integer("criterion_id")
      .notNull()
      .references(() => successCriteria.id, { onDelete: "cascade" }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: CRITERION_UPDATE_KINDS }).notNull(),
    fromStatus: text("from_status", { enum: CRITERION_STATUSES }),
    toStatus: text("to_status", { enum: CRITERION_STATUSES }),
    actual: text("actual"),
    evidence: text("evidence"),
    required: integer("required", { mode: "boolean" }),
    actor: text("actor").notNull(),
    principalId: text("principal_id"),
    role: text("role"),
    at: createdAt("at"),
  },
  (t) => [
    index("criterion_updates_criterion_id_idx").on(t.criterionId, t.id),
    index("criterion_updates_session_id_at_idx").on(t.sessionId, t.at),
    check("criterion_updates_kind_check", sql`${t.kind} in (${inList(CRITERION_UPDATE_KINDS)})`),
  ],
);

/** Append-only: each run of the completion gate, and each completion claim an orchestrator made. */
export const completionChecks = sqliteTable(
  "completion_checks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    accepted: integer("accepted", { mode: "boolean" }).notNull(),
    reasons: text("reasons", { mode: "json" }).$type<string[]>().notNull(),
    metCount: integer("met_count").notNull(),
    totalCount: integer("total_count").notNull(),
    source: text("source", { enum: COMPLETION_CHECK_SOURCES }).notNull().default("gate"),
    /** What the orchestrator itself said (e.g. BAZINGA's verdict), kept beside Proofgate's. */
    claimedVerdict: text("claimed_verdict"),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    actor: text("actor").notNull(),
    principalId: text("principal_id"),
    role: text("role"),
    at: createdAt("at"),
  },
  (t) => [
    index("completion_checks_session_id_at_idx").on(t.sessionId, t.at),
    // A session's newest check, found without reading its others: the completion gate's triggers
    // (db/completion-gate.ts) look it up on every write to what the gate reads.
    index("completion_checks_session_id_id_idx").on(t.sessionId, t.id),
    index("completion_checks_at_idx").on(t.at),
    check("completion_checks_source_check", sql`${t.source} in (${inList(COMPLETION_CHECK_SOURCES)})`),
  ],
);
