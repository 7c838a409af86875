ALTER TABLE `repository_settings` ADD `web_url` varchar(512) CHARACTER SET ascii COLLATE ascii_bin;--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `web_url_source` enum('api','ingest');--> statement-breakpoint
CREATE INDEX `executions_branch_recent_idx` ON `executions` (`org_id`,`repo`,`branch`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_outcome_recent_idx` ON `executions` (`org_id`,`repo`,`outcome`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_component_recent_idx` ON `executions` (`org_id`,`repo`,`component`,`created_at`,`id`);