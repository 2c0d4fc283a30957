CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subscription_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`event_type` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_owner` text,
	`lease_until` integer,
	`last_error` text,
	`response_code` integer,
	`last_attempt_at` integer,
	`delivered_at` integer,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	FOREIGN KEY (`subscription_id`) REFERENCES `webhook_subscriptions`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "webhook_deliveries_status_check" CHECK("webhook_deliveries"."status" in ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`next_attempt_at`) WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription_id_id_idx` ON `webhook_deliveries` (`subscription_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`all_events` integer DEFAULT false NOT NULL,
	`format` text DEFAULT 'json' NOT NULL,
	`session_source` text,
	`secret_sealed` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	CONSTRAINT "webhook_subscriptions_format_check" CHECK("webhook_subscriptions"."format" in ('json', 'slack')),
	CONSTRAINT "webhook_subscriptions_session_source_check" CHECK("webhook_subscriptions"."session_source" is null or "webhook_subscriptions"."session_source" in ('api', 'demo', 'bazinga', 'shots-on-goal'))
);
