ALTER TABLE `deliveries` ADD `sent_result` enum('status_set','comment_created','comment_updated','comment_newer');--> statement-breakpoint
ALTER TABLE `executions` ADD `feedback` text;