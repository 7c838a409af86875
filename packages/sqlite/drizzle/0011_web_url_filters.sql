ALTER TABLE `repository_settings` ADD `web_url` text;--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `web_url_source` text;--> statement-breakpoint
CREATE INDEX `executions_branch_recent_idx` ON `executions` (`org_id`,`repo`,`branch`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_outcome_recent_idx` ON `executions` (`org_id`,`repo`,`outcome`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_component_recent_idx` ON `executions` (`org_id`,`repo`,`component`,`created_at`,`id`);