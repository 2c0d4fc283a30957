import type { Role } from "@/server/domain/actors";

/*
 * Who may write what in the goal/attempt ledger. Reads need only viewer (any principal).
 *
 * | writes                                                             | roles                              |
 * |--------------------------------------------------------------------|------------------------------------|
 * | goals, goal contracts, validation steps, branches                  | agent, orchestrator, lead, admin   |
 * | worktrees, attempts, tool calls, results, validation runs, merges  | agent, orchestrator, admin         |
 * | trust scores                                                       | verifier, lead, admin              |
 * | goal gate evaluations                                              | verifier, orchestrator, lead, admin|
 *
 * A viewer writes nothing. Leads plan (set goals and what "achieved" means) but do not record
 * what an attempt did: that record is the executors', so a human's word never stands in for it.
 * Worktrees go with attempts, not with branches: each attempt gets its own, made while it runs.
 * A verifier judges (scores, evaluates) and never records the work it judges.
 */
export const PLAN_ROLES: readonly Role[] = ["agent", "orchestrator", "lead", "admin"];
export const RECORD_ROLES: readonly Role[] = ["agent", "orchestrator", "admin"];
export const SCORE_ROLES: readonly Role[] = ["verifier", "lead", "admin"];
export const EVALUATE_ROLES: readonly Role[] = ["verifier", "orchestrator", "lead", "admin"];
