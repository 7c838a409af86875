ALTER TABLE `executions` ADD `policy_digest` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `policy_commit` text;