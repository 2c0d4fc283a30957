CREATE INDEX `events_actor_id_idx` ON `events` (`actor`,`id`);--> statement-breakpoint
CREATE INDEX `events_at_idx` ON `events` (`at`);