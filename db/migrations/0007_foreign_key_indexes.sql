CREATE INDEX `success_criteria_supersedes_id_idx` ON `success_criteria` (`supersedes_id`) WHERE "success_criteria"."supersedes_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `attempt_tools_tool_id_idx` ON `attempt_tools` (`tool_id`);--> statement-breakpoint
CREATE INDEX `attempts_worktree_id_idx` ON `attempts` (`worktree_id`) WHERE "attempts"."worktree_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `branches_parent_branch_id_idx` ON `branches` (`parent_branch_id`) WHERE "branches"."parent_branch_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `branches_created_by_goal_id_idx` ON `branches` (`created_by_goal_id`) WHERE "branches"."created_by_goal_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `goals_created_by_attempt_id_idx` ON `goals` (`created_by_attempt_id`) WHERE "goals"."created_by_attempt_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `tool_calls_tool_id_idx` ON `tool_calls` (`tool_id`) WHERE "tool_calls"."tool_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `goal_gate_evaluations_contract_id_idx` ON `goal_gate_evaluations` (`contract_id`) WHERE "goal_gate_evaluations"."contract_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `goal_gate_evaluations_attempt_id_idx` ON `goal_gate_evaluations` (`attempt_id`) WHERE "goal_gate_evaluations"."attempt_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `context_packages_supersedes_id_idx` ON `context_packages` (`supersedes_id`) WHERE "context_packages"."supersedes_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `api_tokens_user_id_idx` ON `api_tokens` (`user_id`) WHERE "api_tokens"."user_id" IS NOT NULL;