ALTER TABLE `executions` ADD `branch_target` real;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_branches_covered` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_branches_total` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `patch_branch_target` real;