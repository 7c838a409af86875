CREATE TABLE `execution_files` (
	`execution_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`data` mediumblob NOT NULL,
	CONSTRAINT `execution_files_execution_id` PRIMARY KEY(`execution_id`)
);
--> statement-breakpoint
CREATE TABLE `repository_settings` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`repo` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`patch_target` decimal(5,2),
	`updated_at` datetime(0) NOT NULL,
	CONSTRAINT `repository_settings_pk` PRIMARY KEY(`org_id`,`repo`)
);
--> statement-breakpoint
ALTER TABLE `executions` DROP INDEX `executions_branch_recent_idx`, DROP INDEX `executions_baseline_idx`, ADD `baseline_selection` enum('base_commit','latest'), ADD `component` varchar(64) CHARACTER SET ascii COLLATE ascii_bin, ADD `pull_request` int unsigned, ADD `base_commit` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, ADD `patch_covered` int unsigned, ADD `patch_coverable` int unsigned, ADD `patch_target` decimal(5,2), ADD `patch_target_source` enum('run','repository','default'), ADD `decided_by` enum('delta','patch'), ADD `file_count` int unsigned, ADD INDEX `executions_component_branch_recent_idx` (`org_id`,`repo`,`component`,`branch`,`created_at`,`id`), ADD INDEX `executions_component_baseline_idx` (`org_id`,`repo`,`component`,`branch`,`baseline_eligible`,`created_at`,`id`), ADD INDEX `executions_commit_idx` (`org_id`,`repo`,`commit`);