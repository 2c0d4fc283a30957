import { sql } from "drizzle-orm";
import { check, index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, inList, nowMs, timestampMs } from "./columns";
import { ACCEPTANCE_KINDS, COMPARISON_OPS, GOAL_GATE_STATUSES, TWO_GATE_VERDICTS } from "@/server/domain/vocabulary";
import { attempts, goals } from "./goals";

/** A goal's contract (002). Immutable, with its criteria, once an attempt was evaluated against it (trigger). */
export const goalContracts = sqliteTable(
  "goal_contracts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    goalId: integer("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    version: integer("version").notNull().default(1),
    goalText: text("goal_text").notNull(),
    goalType: text("goal_type"),
    maxGoalAttempts: integer("max_goal_attempts").notNull().default(3),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("goal_contracts_goal_id_idx").on(t.goalId), check("goal_contracts_max_goal_attempts_check", sql`${t.maxGoalAttempts} between 1 and 100`)],
);

export const acceptanceCriteria = sqliteTable(
  "acceptance_criteria",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    contractId: integer("contract_id")
      .notNull()
      .references(() => goalContracts.id, { onDelete: "cascade" }),
    /** The contract's own id for the criterion, e.g. `AC1`. */
    key: text("key").notNull(),
    position: integer("position").notNull(),
    kind: text("kind", { enum: ACCEPTANCE_KINDS }).notNull(),
    description: text("description"),
    metric: text("metric"),
    op: text("op", { enum: COMPARISON_OPS }),
    target: real("target"),
    marker: text("marker"),
    artifactPattern: text("artifact_pattern"),
    minCount: integer("min_count"),
  },
  (t) => [
    uniqueIndex("acceptance_criteria_contract_id_key_idx").on(t.contractId, t.key),
    check("acceptance_criteria_kind_check", sql`${t.kind} in (${inList(ACCEPTANCE_KINDS)})`),
  ],
);

/** Append-only: a verifier's trust score for an attempt (the Trust Gate's input). */
export const trustScores = sqliteTable(
  "trust_scores",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    attemptId: integer("attempt_id")
      .notNull()
      .references(() => attempts.id, { onDelete: "cascade" }),
    score: real("score").notNull(),
    notes: text("notes"),
    actor: text("actor").notNull(),
    principalId: text("principal_id"),
    at: createdAt("at"),
  },
  (t) => [index("trust_scores_attempt_id_idx").on(t.attemptId, t.id), check("trust_scores_score_check", sql`${t.score} between 0 and 100`)],
);

/** Append-only: every two-gate evaluation of a goal. */
export const goalGateEvaluations = sqliteTable(
  "goal_gate_evaluations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    goalId: integer("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    contractId: integer("contract_id").references(() => goalContracts.id, { onDelete: "cascade" }),
    attemptId: integer("attempt_id").references(() => attempts.id, { onDelete: "cascade" }),
    attemptNumber: integer("attempt_number").notNull(),
    maxAttempts: integer("max_attempts"),
    trustScore: real("trust_score"),
    trustPassed: integer("trust_passed", { mode: "boolean" }).notNull(),
    goalStatus: text("goal_status", { enum: GOAL_GATE_STATUSES }).notNull(),
    metCount: integer("met_count").notNull(),
    totalCount: integer("total_count").notNull(),
    criteriaResults: text("criteria_results", { mode: "json" }).$type<unknown[]>().notNull(),
    verdict: text("verdict", { enum: TWO_GATE_VERDICTS }).notNull(),
    reason: text("reason").notNull(),
    pivot: text("pivot", { mode: "json" }).$type<Record<string, unknown>>(),
    actor: text("actor").notNull(),
    principalId: text("principal_id"),
    at: createdAt("at"),
  },
  (t) => [
    index("goal_gate_evaluations_goal_id_idx").on(t.goalId, t.id),
    index("goal_gate_evaluations_verdict_at_idx").on(t.verdict, t.at),
    // The contract's immutability triggers ask "was an attempt evaluated against it?" on every change.
    index("goal_gate_evaluations_contract_id_idx")
      .on(t.contractId)
      .where(sql`${t.contractId} IS NOT NULL`),
    index("goal_gate_evaluations_attempt_id_idx")
      .on(t.attemptId)
      .where(sql`${t.attemptId} IS NOT NULL`),
    check("goal_gate_evaluations_verdict_check", sql`${t.verdict} in (${inList(TWO_GATE_VERDICTS)})`),
    check("goal_gate_evaluations_goal_status_check", sql`${t.goalStatus} in (${inList(GOAL_GATE_STATUSES)})`),
  ],
);
