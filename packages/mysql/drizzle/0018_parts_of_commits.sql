CREATE TABLE `commit_reports` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`repo` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`commit` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`component` varchar(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	`execution_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	CONSTRAINT `commit_reports_pk` PRIMARY KEY(`org_id`,`repo`,`commit`,`component`)
);
--> statement-breakpoint
CREATE TABLE `execution_parts` (
	`execution_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`name` varchar(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`received_at` datetime(0) NOT NULL,
	`coverage` decimal(5,2) NOT NULL,
	`lines` mediumblob NOT NULL,
	CONSTRAINT `execution_parts_pk` PRIMARY KEY(`execution_id`,`name`)
);
--> statement-breakpoint
ALTER TABLE `executions` MODIFY COLUMN `outcome` enum('pass','warn','fail','pending') NOT NULL;--> statement-breakpoint
ALTER TABLE `executions` MODIFY COLUMN `baseline_eligible` boolean GENERATED ALWAYS AS ((`outcome` in ('pass','warn'))) STORED;--> statement-breakpoint
ALTER TABLE `executions` ADD `parts` text CHARACTER SET ascii COLLATE ascii_bin;--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `expected_parts` text CHARACTER SET ascii COLLATE ascii_bin;--> statement-breakpoint
ALTER TABLE `repository_settings` ADD `parts_deadline_minutes` int unsigned;--> statement-breakpoint
CREATE INDEX `executions_outcome_idx` ON `executions` (`outcome`,`created_at`);