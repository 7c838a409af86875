CREATE TABLE `deliveries` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`repo` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`execution_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`kind` enum('status_project','status_patch','comment') NOT NULL,
	`payload` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`state` enum('pending','sent','failed') NOT NULL,
	`attempts` int unsigned NOT NULL,
	`next_attempt_at` datetime(0) NOT NULL,
	`lease_owner` varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
	`lease_until` datetime(0),
	`last_error` text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
	`last_status` int,
	`created_at` datetime(0) NOT NULL,
	`updated_at` datetime(0) NOT NULL,
	`sent_at` datetime(0),
	CONSTRAINT `deliveries_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `repository_links` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`repo` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`github_repo` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`api_url` varchar(1024) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'https://api.github.com',
	`credential` text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`credential_hint` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`created_by` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`created_at` datetime(0) NOT NULL,
	`updated_at` datetime(0) NOT NULL,
	CONSTRAINT `repository_links_pk` PRIMARY KEY(`org_id`,`repo`)
);
--> statement-breakpoint
CREATE INDEX `deliveries_claim_idx` ON `deliveries` (`state`,`next_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_repo_state_idx` ON `deliveries` (`org_id`,`repo`,`state`,`updated_at`);--> statement-breakpoint
CREATE INDEX `deliveries_execution_idx` ON `deliveries` (`org_id`,`execution_id`);