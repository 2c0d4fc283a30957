CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`requirements` text,
	`mode` text,
	`status` text DEFAULT 'active' NOT NULL,
	`initial_branch` text,
	`repo_path` text,
	`models` text,
	`flags` text,
	`metadata` text,
	`source` text DEFAULT 'api' NOT NULL,
	`enforcement` text DEFAULT 'enforce' NOT NULL,
	`started_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`ended_at` integer,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`tasks_total` integer DEFAULT 0 NOT NULL,
	`tasks_pending` integer DEFAULT 0 NOT NULL,
	`tasks_in_progress` integer DEFAULT 0 NOT NULL,
	`tasks_claimed` integer DEFAULT 0 NOT NULL,
	`tasks_verified` integer DEFAULT 0 NOT NULL,
	`tasks_blocked` integer DEFAULT 0 NOT NULL,
	`tasks_completed` integer DEFAULT 0 NOT NULL,
	`tasks_unverified` integer DEFAULT 0 NOT NULL,
	`reset_requests` integer DEFAULT 0 NOT NULL,
	`criteria_total` integer DEFAULT 0 NOT NULL,
	`criteria_required` integer DEFAULT 0 NOT NULL,
	`criteria_required_met` integer DEFAULT 0 NOT NULL,
	CONSTRAINT "sessions_status_check" CHECK("sessions"."status" in ('active', 'completed', 'failed')),
	CONSTRAINT "sessions_source_check" CHECK("sessions"."source" in ('api', 'demo', 'bazinga', 'shots-on-goal')),
	CONSTRAINT "sessions_enforcement_check" CHECK("sessions"."enforcement" in ('enforce', 'observe'))
);
--> statement-breakpoint
CREATE INDEX `sessions_started_at_idx` ON `sessions` (`started_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_status_started_at_idx` ON `sessions` (`status`,`started_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_source_started_at_idx` ON `sessions` (`source`,`started_at`,`id`);--> statement-breakpoint
CREATE INDEX `sessions_blocked_started_at_idx` ON `sessions` (`started_at`,`id`) WHERE "sessions"."tasks_blocked" > 0;--> statement-breakpoint
CREATE TABLE `task_transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`move` text NOT NULL,
	`from_status` text,
	`to_status` text NOT NULL,
	`actor` text NOT NULL,
	`principal_id` text,
	`role` text,
	`reason` text,
	`evidence` text,
	`proofpack` text,
	`failures` text,
	`verification` text,
	`claimant` text,
	`at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `task_transitions_task_id_idx` ON `task_transitions` (`task_id`,`id`);--> statement-breakpoint
CREATE INDEX `task_transitions_session_id_at_idx` ON `task_transitions` (`session_id`,`at`);--> statement-breakpoint
CREATE INDEX `task_transitions_move_at_idx` ON `task_transitions` (`move`,`at`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`key` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`assignee` text,
	`claimed_by` text,
	`claimed_by_principal` text,
	`claimed_at` integer,
	`evidence` text,
	`verified_by` text,
	`verified_by_principal` text,
	`verified_at` integer,
	`blocked_by` text,
	`blocked_by_principal` text,
	`blocked_at` integer,
	`completed_by` text,
	`completed_at` integer,
	`proofpack` text,
	`failures` text,
	`verification` text,
	`reset_requested` integer DEFAULT false NOT NULL,
	`reset_requested_by` text,
	`reset_requested_at` integer,
	`reset_reason` text,
	`reset_count` integer DEFAULT 0 NOT NULL,
	`revision_count` integer DEFAULT 0 NOT NULL,
	`complexity` integer,
	`tier` text,
	`branch` text,
	`merge_status` text,
	`last_review_status` text,
	`source_status` text,
	`item_count` integer,
	`component_path` text,
	`specializations` text,
	`context_references` text,
	`security_sensitive` integer DEFAULT false NOT NULL,
	`qa_attempts` integer DEFAULT 0 NOT NULL,
	`tl_review_attempts` integer DEFAULT 0 NOT NULL,
	`review_iteration` integer DEFAULT 1 NOT NULL,
	`no_progress_count` integer DEFAULT 0 NOT NULL,
	`blocking_issues_count` integer DEFAULT 0 NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "tasks_status_check" CHECK("tasks"."status" in ('pending', 'in_progress', 'claimed', 'verified', 'blocked', 'completed')),
	CONSTRAINT "tasks_verification_check" CHECK("tasks"."verification" is null or "tasks"."verification" in ('verified', 'none')),
	CONSTRAINT "tasks_complexity_check" CHECK("tasks"."complexity" is null or "tasks"."complexity" between 1 and 10),
	CONSTRAINT "tasks_counts_check" CHECK("tasks"."revision_count" >= 0 and "tasks"."reset_count" >= 0 and "tasks"."version" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_session_id_key_idx` ON `tasks` (`session_id`,`key`);--> statement-breakpoint
CREATE INDEX `tasks_session_id_status_idx` ON `tasks` (`session_id`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_inbox_idx` ON `tasks` (`reset_requested`,`blocked_at`,`id`) WHERE "tasks"."status" = 'blocked';--> statement-breakpoint
CREATE TABLE `completion_checks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`accepted` integer NOT NULL,
	`reasons` text NOT NULL,
	`met_count` integer NOT NULL,
	`total_count` integer NOT NULL,
	`source` text DEFAULT 'gate' NOT NULL,
	`claimed_verdict` text,
	`details` text,
	`actor` text NOT NULL,
	`principal_id` text,
	`role` text,
	`at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "completion_checks_source_check" CHECK("completion_checks"."source" in ('gate', 'pm_bazinga', 'validator_verdict'))
);
--> statement-breakpoint
CREATE INDEX `completion_checks_session_id_at_idx` ON `completion_checks` (`session_id`,`at`);--> statement-breakpoint
CREATE INDEX `completion_checks_at_idx` ON `completion_checks` (`at`);--> statement-breakpoint
CREATE TABLE `criterion_updates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`criterion_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`kind` text NOT NULL,
	`from_status` text,
	`to_status` text,
	`actual` text,
	`evidence` text,
	`required` integer,
	`actor` text NOT NULL,
	`principal_id` text,
	`role` text,
	`at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`criterion_id`) REFERENCES `success_criteria`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "criterion_updates_kind_check" CHECK("criterion_updates"."kind" in ('create', 'claim', 'verify', 'required', 'import'))
);
--> statement-breakpoint
CREATE INDEX `criterion_updates_criterion_id_idx` ON `criterion_updates` (`criterion_id`,`id`);--> statement-breakpoint
CREATE INDEX `criterion_updates_session_id_at_idx` ON `criterion_updates` (`session_id`,`at`);--> statement-breakpoint
CREATE TABLE `success_criteria` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`criterion` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`actual` text,
	`evidence` text,
	`required_for_completion` integer DEFAULT true NOT NULL,
	`supersedes_id` integer,
	`migrated` integer DEFAULT false NOT NULL,
	`verifier_status` text,
	`verifier_actual` text,
	`verifier_evidence` text,
	`verifier_by` text,
	`verifier_at` integer,
	`created_by` text,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`supersedes_id`) REFERENCES `success_criteria`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "success_criteria_status_check" CHECK("success_criteria"."status" in ('pending', 'met', 'blocked', 'failed')),
	CONSTRAINT "success_criteria_verifier_status_check" CHECK("success_criteria"."verifier_status" is null or "success_criteria"."verifier_status" in ('pending', 'met', 'blocked', 'failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `success_criteria_session_id_criterion_idx` ON `success_criteria` (`session_id`,`criterion`);--> statement-breakpoint
CREATE INDEX `success_criteria_session_id_status_idx` ON `success_criteria` (`session_id`,`status`);--> statement-breakpoint
CREATE INDEX `success_criteria_status_idx` ON `success_criteria` (`status`);--> statement-breakpoint
CREATE TABLE `attempt_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`attempt_id` integer NOT NULL,
	`end_commit_sha` text,
	`diff` text,
	`status` text NOT NULL,
	`status_detail` text,
	`metrics` text,
	`markers` text,
	`artifacts` text,
	`verified_findings` integer,
	`output` text,
	FOREIGN KEY (`attempt_id`) REFERENCES `attempts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "attempt_results_status_check" CHECK("attempt_results"."status" in ('success', 'error', 'timeout', 'tool_limit', 'completed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attempt_results_attempt_id_idx` ON `attempt_results` (`attempt_id`);--> statement-breakpoint
CREATE INDEX `attempt_results_status_idx` ON `attempt_results` (`status`);--> statement-breakpoint
CREATE TABLE `attempt_tools` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`attempt_id` integer NOT NULL,
	`tool_id` integer NOT NULL,
	FOREIGN KEY (`attempt_id`) REFERENCES `attempts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tool_id`) REFERENCES `tools`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attempt_tools_attempt_id_tool_id_idx` ON `attempt_tools` (`attempt_id`,`tool_id`);--> statement-breakpoint
CREATE TABLE `attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`goal_id` integer NOT NULL,
	`worktree_id` integer,
	`start_commit_sha` text,
	`prompt` text,
	`model` text,
	`attempt_type` text DEFAULT 'implementation' NOT NULL,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`worktree_id`) REFERENCES `worktrees`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "attempts_attempt_type_check" CHECK("attempts"."attempt_type" in ('implementation', 'breakdown'))
);
--> statement-breakpoint
CREATE INDEX `attempts_goal_id_idx` ON `attempts` (`goal_id`,`id`);--> statement-breakpoint
CREATE INDEX `attempts_model_idx` ON `attempts` (`model`);--> statement-breakpoint
CREATE TABLE `branches` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`session_id` text NOT NULL,
	`name` text NOT NULL,
	`parent_branch_id` integer,
	`parent_commit_sha` text,
	`reason` text,
	`created_by_goal_id` integer,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_branch_id`) REFERENCES `branches`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by_goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `branches_session_id_idx` ON `branches` (`session_id`);--> statement-breakpoint
CREATE TABLE `goals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`session_id` text NOT NULL,
	`goal_text` text NOT NULL,
	`parent_goal_id` integer,
	`order` integer,
	`source` text DEFAULT 'cli' NOT NULL,
	`created_by_attempt_id` integer,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_attempt_id`) REFERENCES `attempts`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "goals_source_check" CHECK("goals"."source" in ('cli', 'breakdown'))
);
--> statement-breakpoint
CREATE INDEX `goals_session_id_idx` ON `goals` (`session_id`,`id`);--> statement-breakpoint
CREATE INDEX `goals_parent_goal_id_idx` ON `goals` (`parent_goal_id`);--> statement-breakpoint
CREATE TABLE `merges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`from_branch_id` integer NOT NULL,
	`from_commit_sha` text NOT NULL,
	`to_branch_id` integer NOT NULL,
	`to_commit_sha` text NOT NULL,
	`result_commit_sha` text NOT NULL,
	FOREIGN KEY (`from_branch_id`) REFERENCES `branches`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`to_branch_id`) REFERENCES `branches`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `merges_from_branch_id_idx` ON `merges` (`from_branch_id`);--> statement-breakpoint
CREATE INDEX `merges_to_branch_id_idx` ON `merges` (`to_branch_id`);--> statement-breakpoint
CREATE TABLE `tool_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`attempt_id` integer NOT NULL,
	`order` integer NOT NULL,
	`tool_id` integer,
	`tool_name` text NOT NULL,
	`input` text,
	`output` text,
	FOREIGN KEY (`attempt_id`) REFERENCES `attempts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tool_id`) REFERENCES `tools`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tool_calls_attempt_id_order_idx` ON `tool_calls` (`attempt_id`,`order`);--> statement-breakpoint
CREATE TABLE `tools` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`session_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tools_session_id_name_idx` ON `tools` (`session_id`,`name`);--> statement-breakpoint
CREATE TABLE `validation_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`validation_step_id` integer NOT NULL,
	`attempt_result_id` integer NOT NULL,
	`exit_code` integer NOT NULL,
	`output` text,
	FOREIGN KEY (`validation_step_id`) REFERENCES `validation_steps`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`attempt_result_id`) REFERENCES `attempt_results`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `validation_runs_attempt_result_id_idx` ON `validation_runs` (`attempt_result_id`);--> statement-breakpoint
CREATE INDEX `validation_runs_validation_step_id_idx` ON `validation_runs` (`validation_step_id`);--> statement-breakpoint
CREATE TABLE `validation_steps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`goal_id` integer NOT NULL,
	`order` integer NOT NULL,
	`command` text NOT NULL,
	`source` text DEFAULT 'cli' NOT NULL,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `validation_steps_goal_id_idx` ON `validation_steps` (`goal_id`,`order`);--> statement-breakpoint
CREATE TABLE `worktrees` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`branch_id` integer NOT NULL,
	`path` text NOT NULL,
	`start_sha` text,
	`reason` text,
	FOREIGN KEY (`branch_id`) REFERENCES `branches`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `worktrees_branch_id_idx` ON `worktrees` (`branch_id`);--> statement-breakpoint
CREATE TABLE `acceptance_criteria` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`contract_id` integer NOT NULL,
	`key` text NOT NULL,
	`position` integer NOT NULL,
	`kind` text NOT NULL,
	`description` text,
	`metric` text,
	`op` text,
	`target` real,
	`marker` text,
	`artifact_pattern` text,
	`min_count` integer,
	FOREIGN KEY (`contract_id`) REFERENCES `goal_contracts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "acceptance_criteria_kind_check" CHECK("acceptance_criteria"."kind" in ('metric_threshold', 'marker_required', 'artifact_exists', 'finding_count'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `acceptance_criteria_contract_id_key_idx` ON `acceptance_criteria` (`contract_id`,`key`);--> statement-breakpoint
CREATE TABLE `goal_contracts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`goal_id` integer NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`goal_text` text NOT NULL,
	`goal_type` text,
	`max_goal_attempts` integer DEFAULT 3 NOT NULL,
	`created_by` text,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "goal_contracts_max_goal_attempts_check" CHECK("goal_contracts"."max_goal_attempts" between 1 and 100)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `goal_contracts_goal_id_idx` ON `goal_contracts` (`goal_id`);--> statement-breakpoint
CREATE TABLE `goal_gate_evaluations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`goal_id` integer NOT NULL,
	`contract_id` integer,
	`attempt_id` integer,
	`attempt_number` integer NOT NULL,
	`max_attempts` integer,
	`trust_score` real,
	`trust_passed` integer NOT NULL,
	`goal_status` text NOT NULL,
	`met_count` integer NOT NULL,
	`total_count` integer NOT NULL,
	`criteria_results` text NOT NULL,
	`verdict` text NOT NULL,
	`reason` text NOT NULL,
	`pivot` text,
	`actor` text NOT NULL,
	`principal_id` text,
	`at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contract_id`) REFERENCES `goal_contracts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`attempt_id`) REFERENCES `attempts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "goal_gate_evaluations_verdict_check" CHECK("goal_gate_evaluations"."verdict" in ('SUCCESS', 'PARTIAL', 'BLOCKED')),
	CONSTRAINT "goal_gate_evaluations_goal_status_check" CHECK("goal_gate_evaluations"."goal_status" in ('MET', 'NOT_MET', 'BLOCKED', 'NO_CONTRACT'))
);
--> statement-breakpoint
CREATE INDEX `goal_gate_evaluations_goal_id_idx` ON `goal_gate_evaluations` (`goal_id`,`id`);--> statement-breakpoint
CREATE INDEX `goal_gate_evaluations_verdict_at_idx` ON `goal_gate_evaluations` (`verdict`,`at`);--> statement-breakpoint
CREATE TABLE `trust_scores` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`attempt_id` integer NOT NULL,
	`score` real NOT NULL,
	`notes` text,
	`actor` text NOT NULL,
	`principal_id` text,
	`at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`attempt_id`) REFERENCES `attempts`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "trust_scores_score_check" CHECK("trust_scores"."score" between 0 and 100)
);
--> statement-breakpoint
CREATE INDEX `trust_scores_attempt_id_idx` ON `trust_scores` (`attempt_id`,`id`);--> statement-breakpoint
CREATE TABLE `context_package_consumers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`package_id` integer NOT NULL,
	`agent_type` text NOT NULL,
	`consumed_at` integer,
	`iteration` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`package_id`) REFERENCES `context_packages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `context_package_consumers_package_id_agent_type_iteration_idx` ON `context_package_consumers` (`package_id`,`agent_type`,`iteration`);--> statement-breakpoint
CREATE INDEX `context_package_consumers_agent_type_idx` ON `context_package_consumers` (`agent_type`);--> statement-breakpoint
CREATE TABLE `context_packages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`group_id` text,
	`package_type` text NOT NULL,
	`file_path` text NOT NULL,
	`producer_agent` text NOT NULL,
	`priority` text DEFAULT 'medium' NOT NULL,
	`summary` text NOT NULL,
	`size_bytes` integer,
	`version` integer DEFAULT 1 NOT NULL,
	`supersedes_id` integer,
	`scope` text DEFAULT 'group' NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`supersedes_id`) REFERENCES `context_packages`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "context_packages_package_type_check" CHECK("context_packages"."package_type" in ('research', 'failures', 'decisions', 'handoff', 'investigation')),
	CONSTRAINT "context_packages_priority_check" CHECK("context_packages"."priority" in ('low', 'medium', 'high', 'critical')),
	CONSTRAINT "context_packages_scope_check" CHECK("context_packages"."scope" in ('group', 'global'))
);
--> statement-breakpoint
CREATE INDEX `context_packages_session_id_priority_idx` ON `context_packages` (`session_id`,`priority`,`created_at`);--> statement-breakpoint
CREATE INDEX `context_packages_session_id_group_id_idx` ON `context_packages` (`session_id`,`group_id`);--> statement-breakpoint
CREATE TABLE `decisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`iteration` integer,
	`decision_type` text NOT NULL,
	`decision_data` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `decisions_session_id_idx` ON `decisions` (`session_id`,`id`);--> statement-breakpoint
CREATE TABLE `development_plans` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`original_prompt` text NOT NULL,
	`plan_text` text NOT NULL,
	`phases` text NOT NULL,
	`current_phase` integer,
	`total_phases` integer NOT NULL,
	`metadata` text,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `development_plans_session_id_idx` ON `development_plans` (`session_id`);--> statement-breakpoint
CREATE TABLE `orchestration_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`iteration` integer,
	`agent_type` text NOT NULL,
	`agent_id` text,
	`content` text NOT NULL,
	`log_type` text DEFAULT 'interaction' NOT NULL,
	`reasoning_phase` text,
	`confidence_level` text,
	`references_json` text,
	`redacted` integer DEFAULT false NOT NULL,
	`group_id` text,
	`event_subtype` text,
	`event_payload` text,
	`idempotency_key` text,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "orchestration_logs_log_type_check" CHECK("orchestration_logs"."log_type" in ('interaction', 'reasoning', 'event')),
	CONSTRAINT "orchestration_logs_reasoning_phase_check" CHECK("orchestration_logs"."reasoning_phase" is null or "orchestration_logs"."reasoning_phase" in ('understanding', 'approach', 'decisions', 'risks', 'blockers', 'pivot', 'completion')),
	CONSTRAINT "orchestration_logs_confidence_level_check" CHECK("orchestration_logs"."confidence_level" is null or "orchestration_logs"."confidence_level" in ('high', 'medium', 'low'))
);
--> statement-breakpoint
CREATE INDEX `orchestration_logs_session_id_id_idx` ON `orchestration_logs` (`session_id`,`id`);--> statement-breakpoint
CREATE INDEX `orchestration_logs_session_id_agent_type_idx` ON `orchestration_logs` (`session_id`,`agent_type`,`id`);--> statement-breakpoint
CREATE INDEX `orchestration_logs_session_id_log_type_idx` ON `orchestration_logs` (`session_id`,`log_type`,`id`);--> statement-breakpoint
CREATE INDEX `orchestration_logs_reasoning_idx` ON `orchestration_logs` (`session_id`,`group_id`,`reasoning_phase`) WHERE "orchestration_logs"."log_type" = 'reasoning';--> statement-breakpoint
CREATE INDEX `orchestration_logs_events_idx` ON `orchestration_logs` (`session_id`,`event_subtype`,`id`) WHERE "orchestration_logs"."log_type" = 'event';--> statement-breakpoint
CREATE UNIQUE INDEX `orchestration_logs_idempotency_idx` ON `orchestration_logs` (`session_id`,`event_subtype`,`group_id`,`idempotency_key`) WHERE "orchestration_logs"."idempotency_key" is not null and "orchestration_logs"."log_type" = 'event';--> statement-breakpoint
CREATE TABLE `skill_outputs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`skill_name` text NOT NULL,
	`output_data` text NOT NULL,
	`agent_type` text,
	`group_id` text,
	`iteration` integer DEFAULT 1 NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `skill_outputs_latest_idx` ON `skill_outputs` (`session_id`,`skill_name`,`agent_type`,`id`);--> statement-breakpoint
CREATE TABLE `state_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`group_id` text DEFAULT 'global' NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`state_type` text NOT NULL,
	`state_data` text NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "state_snapshots_state_type_check" CHECK("state_snapshots"."state_type" in ('pm', 'orchestrator', 'group_status', 'investigation'))
);
--> statement-breakpoint
CREATE INDEX `state_snapshots_latest_idx` ON `state_snapshots` (`session_id`,`state_type`,`group_id`,`id`);--> statement-breakpoint
CREATE TABLE `token_usage` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`timestamp` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`agent_type` text NOT NULL,
	`agent_id` text,
	`tokens_estimated` integer NOT NULL,
	`model` text,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "token_usage_tokens_check" CHECK("token_usage"."tokens_estimated" >= 0)
);
--> statement-breakpoint
CREATE INDEX `token_usage_session_id_agent_type_idx` ON `token_usage` (`session_id`,`agent_type`);--> statement-breakpoint
CREATE INDEX `token_usage_timestamp_idx` ON `token_usage` (`timestamp`);--> statement-breakpoint
CREATE TABLE `agent_markers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`agent_type` text NOT NULL,
	`required_markers` text NOT NULL,
	`workflow_markers` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_markers_agent_type_unique` ON `agent_markers` (`agent_type`);--> statement-breakpoint
CREATE TABLE `configuration` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `model_config` (
	`agent_role` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`rationale` text,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `workflow_special_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`rule_name` text NOT NULL,
	`description` text,
	`config` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_special_rules_rule_name_unique` ON `workflow_special_rules` (`rule_name`);--> statement-breakpoint
CREATE TABLE `workflow_transitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`current_agent` text NOT NULL,
	`response_status` text NOT NULL,
	`next_agent` text,
	`action` text NOT NULL,
	`include_context` text,
	`escalation_check` integer DEFAULT false NOT NULL,
	`model_override` text,
	`fallback_agent` text,
	`bypass_qa` integer DEFAULT false NOT NULL,
	`max_parallel` integer,
	`then_action` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_transitions_current_agent_response_status_idx` ON `workflow_transitions` (`current_agent`,`response_status`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`type` text NOT NULL,
	`session_id` text,
	`entity` text NOT NULL,
	`entity_id` text,
	`actor` text NOT NULL,
	`principal_id` text,
	`role` text,
	`data` text
);
--> statement-breakpoint
CREATE INDEX `events_session_id_id_idx` ON `events` (`session_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_type_id_idx` ON `events` (`type`,`id`);--> statement-breakpoint
CREATE TABLE `purges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`started_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`finished_at` integer,
	`actor` text NOT NULL,
	`before` integer,
	`reason` text NOT NULL,
	`sessions_deleted` integer
);
--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`user_id` text,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "api_tokens_role_check" CHECK("api_tokens"."role" in ('viewer', 'agent', 'verifier', 'orchestrator', 'lead', 'admin'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_idx` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `auth_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`user_id` text NOT NULL,
	`access_token` text,
	`refresh_token` text,
	`id_token` text,
	`access_token_expires_at` integer,
	`refresh_token_expires_at` integer,
	`scope` text,
	`password` text,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auth_accounts_user_id_idx` ON `auth_accounts` (`user_id`);--> statement-breakpoint
CREATE TABLE `auth_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL,
	`token` text NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`user_id` text NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auth_sessions_token_idx` ON `auth_sessions` (`token`);--> statement-breakpoint
CREATE INDEX `auth_sessions_user_id_idx` ON `auth_sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `auth_verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`identifier` text NOT NULL,
	`value` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`email_verified` integer DEFAULT false NOT NULL,
	`image` text,
	`role` text DEFAULT 'viewer' NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	CONSTRAINT "users_role_check" CHECK("users"."role" in ('viewer', 'lead', 'admin'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_idx` ON `users` (`email`);