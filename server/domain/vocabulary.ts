/**
 * The vocabulary: every closed list of words Proofgate stores and shows (statuses, sources, log
 * types, reasoning phases…). The database stores them as TEXT with CHECK constraints (db/schema),
 * inputs validate against them (zod), and the dashboard's filters offer them, all from this one
 * place. The domain's own unions are reused where they exist.
 */
export { TASK_STATUSES, type TaskStatus } from "@/server/domain/task-machine";
export { CRITERION_STATUSES, type CriterionStatus } from "@/server/domain/criteria";

export const SESSION_STATUSES = ["active", "completed", "failed"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SESSION_SOURCES = ["api", "demo", "bazinga", "shots-on-goal"] as const;
export type SessionSource = (typeof SESSION_SOURCES)[number];

export const ENFORCEMENTS = ["enforce", "observe"] as const;

export const VERIFICATIONS = ["verified", "none"] as const;

export const CRITERION_UPDATE_KINDS = ["create", "claim", "verify", "required", "import"] as const;

export const COMPLETION_CHECK_SOURCES = ["gate", "pm_bazinga", "validator_verdict"] as const;

export const GOAL_SOURCES = ["cli", "breakdown"] as const;
export const ATTEMPT_TYPES = ["implementation", "breakdown"] as const;
export const ATTEMPT_RESULT_STATUSES = ["success", "error", "timeout", "tool_limit", "completed"] as const;
export type AttemptResultStatus = (typeof ATTEMPT_RESULT_STATUSES)[number];

export const ACCEPTANCE_KINDS = ["metric_threshold", "marker_required", "artifact_exists", "finding_count"] as const;
export const COMPARISON_OPS = [">=", ">", "<=", "<", "==", "!="] as const;
export const GOAL_GATE_STATUSES = ["MET", "NOT_MET", "BLOCKED", "NO_CONTRACT"] as const;
export const TWO_GATE_VERDICTS = ["SUCCESS", "PARTIAL", "BLOCKED"] as const;

export const LOG_TYPES = ["interaction", "reasoning", "event"] as const;
export const REASONING_PHASES = ["understanding", "approach", "decisions", "risks", "blockers", "pivot", "completion"] as const;
export const CONFIDENCE_LEVELS = ["high", "medium", "low"] as const;
export const STATE_TYPES = ["pm", "orchestrator", "group_status", "investigation"] as const;
export const CONTEXT_PACKAGE_TYPES = ["research", "failures", "decisions", "handoff", "investigation"] as const;
export const CONTEXT_PRIORITIES = ["low", "medium", "high", "critical"] as const;
export const CONTEXT_SCOPES = ["group", "global"] as const;
export const MERGE_STATUSES = ["pending", "in_progress", "merged", "conflict", "test_failure"] as const;
export const REVIEW_STATUSES = ["APPROVED", "CHANGES_REQUESTED"] as const;
