CREATE TABLE `consumption_scope` (
	`scope_id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`group_id` text NOT NULL,
	`agent_type` text NOT NULL,
	`iteration` integer NOT NULL,
	`package_id` integer NOT NULL,
	`consumed_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `consumption_scope_session_id_group_id_agent_type_idx` ON `consumption_scope` (`session_id`,`group_id`,`agent_type`);--> statement-breakpoint
CREATE UNIQUE INDEX `consumption_scope_unique_idx` ON `consumption_scope` (`session_id`,`group_id`,`agent_type`,`iteration`,`package_id`);--> statement-breakpoint
CREATE INDEX `consumption_scope_package_id_idx` ON `consumption_scope` (`package_id`);--> statement-breakpoint
CREATE TABLE `error_patterns` (
	`pattern_hash` text NOT NULL,
	`project_id` text NOT NULL,
	`signature_json` text NOT NULL,
	`solution` text NOT NULL,
	`confidence` real DEFAULT 0.5 NOT NULL,
	`occurrences` integer DEFAULT 1 NOT NULL,
	`lang` text,
	`last_seen` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`ttl_days` integer DEFAULT 90 NOT NULL,
	`session_id` text,
	`redacted` integer DEFAULT false NOT NULL,
	PRIMARY KEY(`pattern_hash`, `project_id`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "error_patterns_confidence_check" CHECK("error_patterns"."confidence" >= 0 and "error_patterns"."confidence" <= 1),
	CONSTRAINT "error_patterns_occurrences_check" CHECK("error_patterns"."occurrences" >= 1),
	CONSTRAINT "error_patterns_ttl_days_check" CHECK("error_patterns"."ttl_days" > 0)
);
--> statement-breakpoint
CREATE INDEX `error_patterns_project_id_lang_idx` ON `error_patterns` (`project_id`,`lang`);--> statement-breakpoint
CREATE INDEX `error_patterns_session_id_idx` ON `error_patterns` (`session_id`);--> statement-breakpoint
CREATE TABLE `strategies` (
	`strategy_id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`topic` text NOT NULL,
	`insight` text NOT NULL,
	`helpfulness` integer DEFAULT 0 NOT NULL,
	`lang` text,
	`framework` text,
	`last_seen` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`session_id` text,
	`redacted` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "strategies_helpfulness_check" CHECK("strategies"."helpfulness" >= 0)
);
--> statement-breakpoint
CREATE INDEX `strategies_project_id_framework_idx` ON `strategies` (`project_id`,`framework`);--> statement-breakpoint
CREATE INDEX `strategies_topic_idx` ON `strategies` (`topic`);--> statement-breakpoint
CREATE INDEX `strategies_session_id_idx` ON `strategies` (`session_id`);--> statement-breakpoint
ALTER TABLE `tasks` ADD `metadata` text;--> statement-breakpoint
ALTER TABLE `success_criteria` ADD `priority` integer;--> statement-breakpoint
ALTER TABLE `success_criteria` ADD `metadata` text;