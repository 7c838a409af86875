ALTER TABLE `executions` ADD `branches_covered` int unsigned;--> statement-breakpoint
ALTER TABLE `executions` ADD `branches_total` int unsigned;