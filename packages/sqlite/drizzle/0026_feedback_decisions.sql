ALTER TABLE `deliveries` ADD `sent_result` text;--> statement-breakpoint
ALTER TABLE `executions` ADD `feedback` text;