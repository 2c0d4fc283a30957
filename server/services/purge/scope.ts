/**
 * What a purge removes, table by table: every row that hangs off a purged session, directly
 * (`session_id`) or through its parents. Leaves first, so each table's count is its own rows and
 * not a cascade's. `IDS` stands for the purged sessions' ids, a subquery that purge.ts puts in per
 * engine (`sessionIdsSql`).
 */
export const IDS = "(:purged_session_ids)";
const GOALS = `(SELECT id FROM goals WHERE session_id IN ${IDS})`;
const ATTEMPTS = `(SELECT id FROM attempts WHERE goal_id IN ${GOALS})`;
const BRANCHES = `(SELECT id FROM branches WHERE session_id IN ${IDS})`;

export const PURGE_SCOPE: readonly { table: string; where: string }[] = [
  {
    table: "validation_runs",
    where: `attempt_result_id IN (SELECT id FROM attempt_results WHERE attempt_id IN ${ATTEMPTS}) OR validation_step_id IN (SELECT id FROM validation_steps WHERE goal_id IN ${GOALS})`,
  },
  { table: "tool_calls", where: `attempt_id IN ${ATTEMPTS}` },
  { table: "attempt_tools", where: `attempt_id IN ${ATTEMPTS}` },
  { table: "trust_scores", where: `attempt_id IN ${ATTEMPTS}` },
  { table: "goal_gate_evaluations", where: `goal_id IN ${GOALS}` },
  { table: "attempt_results", where: `attempt_id IN ${ATTEMPTS}` },
  { table: "acceptance_criteria", where: `contract_id IN (SELECT id FROM goal_contracts WHERE goal_id IN ${GOALS})` },
  { table: "goal_contracts", where: `goal_id IN ${GOALS}` },
  { table: "validation_steps", where: `goal_id IN ${GOALS}` },
  { table: "merges", where: `from_branch_id IN ${BRANCHES} OR to_branch_id IN ${BRANCHES}` },
  { table: "attempts", where: `goal_id IN ${GOALS}` },
  { table: "worktrees", where: `branch_id IN ${BRANCHES}` },
  { table: "branches", where: `session_id IN ${IDS}` },
  { table: "goals", where: `session_id IN ${IDS}` },
  { table: "tools", where: `session_id IN ${IDS}` },
  { table: "task_transitions", where: `session_id IN ${IDS}` },
  { table: "tasks", where: `session_id IN ${IDS}` },
  { table: "criterion_updates", where: `session_id IN ${IDS}` },
  { table: "success_criteria", where: `session_id IN ${IDS}` },
  { table: "completion_checks", where: `session_id IN ${IDS}` },
  { table: "orchestration_logs", where: `session_id IN ${IDS}` },
  { table: "state_snapshots", where: `session_id IN ${IDS}` },
  { table: "token_usage", where: `session_id IN ${IDS}` },
  { table: "skill_outputs", where: `session_id IN ${IDS}` },
  { table: "decisions", where: `session_id IN ${IDS}` },
  { table: "development_plans", where: `session_id IN ${IDS}` },
  { table: "context_package_consumers", where: `package_id IN (SELECT id FROM context_packages WHERE session_id IN ${IDS})` },
  { table: "context_packages", where: `session_id IN ${IDS}` },
  { table: "runtime_session_links", where: `session_id IN ${IDS}` },
  { table: "consumption_scope", where: `session_id IN ${IDS}` },
  { table: "events", where: `session_id IN ${IDS}` },
  { table: "sessions", where: `id IN ${IDS}` },
];

/**
 * Tables a purge leaves alone: people, tokens and server configuration belong to no session;
 * `import_records` deliberately outlive a purged session (importing the source again must not
 * bring the purged history back); `purges` is the record of purges itself. The analytics rollups
 * are not purged row by row: closing the purge's record recounts them from what is left (a
 * trigger of migration 0004). Error patterns and strategies are a project's knowledge, not a
 * session's: they stay (their link to a purged session is cleared by its foreign key).
 */
export const NOT_PURGED = [
  "users",
  "auth_sessions",
  "auth_accounts",
  "auth_verifications",
  // Sign-in rate limits: a deployment's passing state (keyed by address and path), no session's.
  "auth_rate_limits",
  "api_tokens",
  "configuration",
  "model_config",
  "workflow_transitions",
  "agent_markers",
  "workflow_special_rules",
  "import_records",
  "purges",
  "analytics_rollups",
  "analytics_rollup_state",
  "analytics_reason_kinds",
  // A runtime (Claude Code) session is the runtime's, not one ledger session's: its links to purged sessions go, the row stays.
  "runtime_sessions",
  "error_patterns",
  "strategies",
  // Server-wide notification settings and their delivery log (which names events by id only): a
  // delivery still pending when its event is purged is marked failed ("no longer exists") when tried.
  "webhook_subscriptions",
  "webhook_deliveries",
] as const;
