ALTER TABLE `executions` ADD `posted_by` varchar(512) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `ci_trust` text;