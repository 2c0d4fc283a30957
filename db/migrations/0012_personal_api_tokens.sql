PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`role` text,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`user_id` text,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`last_used_at` integer,
	`expires_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "api_tokens_role_check" CHECK("__new_api_tokens"."role" in ('viewer', 'agent', 'verifier', 'orchestrator', 'lead', 'admin')),
	CONSTRAINT "api_tokens_owner_or_role_check" CHECK(("__new_api_tokens"."user_id" IS NULL) = ("__new_api_tokens"."role" IS NOT NULL))
);
--> statement-breakpoint
INSERT INTO `__new_api_tokens`("id", "name", "role", "token_hash", "prefix", "user_id", "created_by", "created_at", "last_used_at", "expires_at", "revoked_at") SELECT "id", "name", "role", "token_hash", "prefix", "user_id", "created_by", "created_at", "last_used_at", "expires_at", "revoked_at" FROM `api_tokens`;--> statement-breakpoint
DROP TABLE `api_tokens`;--> statement-breakpoint
ALTER TABLE `__new_api_tokens` RENAME TO `api_tokens`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_idx` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_user_id_idx` ON `api_tokens` (`user_id`) WHERE "api_tokens"."user_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `via` text;