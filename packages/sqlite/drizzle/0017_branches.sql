ALTER TABLE `executions` ADD `branches_covered` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `branches_total` integer;