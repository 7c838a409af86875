ALTER TABLE `executions` MODIFY COLUMN `decided_by` enum('delta','patch','target','branches','patch_branches');--> statement-breakpoint
ALTER TABLE `executions` ADD `branch_target` decimal(5,2);--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_branches_covered` int unsigned;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_branches_total` int unsigned;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_branch_target` decimal(5,2);