ALTER TABLE `success_criteria` ADD `priority` integer;--> statement-breakpoint
ALTER TABLE `success_criteria` ADD `metadata` text;