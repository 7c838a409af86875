CREATE TABLE `commit_reports` (
	`org_id` text NOT NULL,
	`repo` text NOT NULL,
	`commit` text NOT NULL,
	`component` text NOT NULL,
	`execution_id` text NOT NULL,
	PRIMARY KEY(`org_id`, `repo`, `commit`, `component`)
);
--> statement-breakpoint
CREATE TABLE `execution_parts` (
	`execution_id` text NOT NULL,
	`name` text NOT NULL,
	`org_id` text NOT NULL,
	`received_at` integer NOT NULL,
	`coverage` real NOT NULL,
	`lines` blob NOT NULL,
	PRIMARY KEY(`execution_id`, `name`)
);
--> statement-breakpoint
DROP INDEX `executions_component_baseline_idx`;--> statement-breakpoint
ALTER TABLE `executions` ADD `parts` text;--> statement-breakpoint
CREATE INDEX `executions_pending_idx` ON `executions` (`created_at`) WHERE "outcome" = 'pending';--> statement-breakpoint
CREATE INDEX `executions_component_baseline_idx` ON `executions` (`org_id`,`repo`,`component`,`branch`,`created_at`,`id`) WHERE "outcome" in ('pass', 'warn');--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `expected_parts` text;--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `parts_deadline_minutes` integer;