ALTER TABLE `executions` ADD `base_branch` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `baseline_id` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `baseline_coverage` real;--> statement-breakpoint
ALTER TABLE `executions` ADD `baseline_commit` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `baseline_created_at` integer;