DROP INDEX `tasks_inbox_idx`;--> statement-breakpoint
CREATE INDEX `tasks_inbox_idx` ON `tasks` (`reset_requested`,`blocked_at`,`id`,`session_id`,`blocked_by`) WHERE "tasks"."status" = 'blocked';