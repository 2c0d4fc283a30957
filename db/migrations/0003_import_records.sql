CREATE TABLE `import_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source` text NOT NULL,
	`entity` text NOT NULL,
	`source_key` text NOT NULL,
	`session_id` text,
	`target_id` text,
	`state` text,
	`imported_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(round((julianday('now') - 2440587.5) * 86400000) as integer)) NOT NULL,
	CONSTRAINT "import_records_source_check" CHECK("import_records"."source" in ('bazinga', 'shots-on-goal'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `import_records_source_entity_source_key_idx` ON `import_records` (`source`,`entity`,`source_key`);--> statement-breakpoint
CREATE INDEX `import_records_session_id_idx` ON `import_records` (`session_id`);