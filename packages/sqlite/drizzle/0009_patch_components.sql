CREATE TABLE `execution_files` (
	`execution_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`data` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `repository_settings` (
	`org_id` text NOT NULL,
	`repo` text NOT NULL,
	`patch_target` real,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `repo`)
);
--> statement-breakpoint
DROP INDEX `executions_branch_recent_idx`;--> statement-breakpoint
DROP INDEX `executions_baseline_idx`;--> statement-breakpoint
ALTER TABLE `executions` ADD `baseline_selection` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `component` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `pull_request` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `base_commit` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_covered` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_coverable` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_target` real;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_target_source` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `decided_by` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `file_count` integer;--> statement-breakpoint
CREATE INDEX `executions_component_branch_recent_idx` ON `executions` (`org_id`,`repo`,`component`,`branch`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_component_baseline_idx` ON `executions` (`org_id`,`repo`,`component`,`branch`,`created_at`,`id`) WHERE "outcome" <> 'fail';--> statement-breakpoint
CREATE INDEX `executions_commit_idx` ON `executions` (`org_id`,`repo`,`commit`);