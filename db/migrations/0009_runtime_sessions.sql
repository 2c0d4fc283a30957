CREATE TABLE `runtime_session_links` (
	`session_id` text PRIMARY KEY NOT NULL,
	`runtime_session_id` integer NOT NULL,
	`linked_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`runtime_session_id`) REFERENCES `runtime_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `runtime_session_links_runtime_session_id_idx` ON `runtime_session_links` (`runtime_session_id`,`session_id`);--> statement-breakpoint
CREATE TABLE `runtime_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`runtime` text NOT NULL,
	`external_id` text NOT NULL,
	`cwd` text,
	`source` text NOT NULL,
	`first_seen_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`last_seen_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`consecutive_blocks` integer DEFAULT 0 NOT NULL,
	`subagent_consecutive_blocks` integer DEFAULT 0 NOT NULL,
	CONSTRAINT "runtime_sessions_runtime_check" CHECK("runtime_sessions"."runtime" in ('claude-code')),
	CONSTRAINT "runtime_sessions_source_check" CHECK("runtime_sessions"."source" in ('startup', 'resume', 'clear', 'compact', 'command')),
	CONSTRAINT "runtime_sessions_consecutive_blocks_check" CHECK("runtime_sessions"."consecutive_blocks" >= 0 and "runtime_sessions"."subagent_consecutive_blocks" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `runtime_sessions_runtime_external_id_idx` ON `runtime_sessions` (`runtime`,`external_id`);