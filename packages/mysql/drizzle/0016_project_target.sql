ALTER TABLE `executions` MODIFY COLUMN `decided_by` enum('delta','patch','target');--> statement-breakpoint
ALTER TABLE `executions` ADD `project_target` decimal(5,2);