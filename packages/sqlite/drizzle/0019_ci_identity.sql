ALTER TABLE `executions` ADD `posted_by` text;--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `ci_trust` text;