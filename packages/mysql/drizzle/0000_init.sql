CREATE TABLE `execution_counters` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`repo` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`total` bigint unsigned NOT NULL,
	CONSTRAINT `execution_counters_pk` PRIMARY KEY(`org_id`,`repo`)
);
--> statement-breakpoint
CREATE TABLE `executions` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`repo` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`branch` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`outcome` enum('pass','warn','fail') NOT NULL,
	`delta` varchar(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`coverage` decimal(5,2) NOT NULL,
	`created_at` datetime(0) NOT NULL,
	`baseline_eligible` boolean GENERATED ALWAYS AS ((`outcome` <> 'fail')) STORED,
	CONSTRAINT `executions_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `organisations` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`slug` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`name` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`plan` enum('free','team','enterprise') NOT NULL,
	`created_at` datetime(0) NOT NULL,
	CONSTRAINT `organisations_id` PRIMARY KEY(`id`),
	CONSTRAINT `organisations_slug_uq` UNIQUE(`slug`)
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`token_hash` varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`user_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`created_at` datetime(0) NOT NULL,
	`expires_at` datetime(0) NOT NULL,
	CONSTRAINT `sessions_id` PRIMARY KEY(`id`),
	CONSTRAINT `sessions_token_hash_uq` UNIQUE(`token_hash`)
);
--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`name` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`scopes` text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`agent_type` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`hash` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`status` enum('active','rotating','revoked') NOT NULL,
	`created_at` datetime(0) NOT NULL,
	`last_used_at` datetime(0),
	`grace_period_ends_at` datetime(0),
	CONSTRAINT `tokens_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`provider` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`external_id` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`login` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`created_at` datetime(0) NOT NULL,
	CONSTRAINT `users_id` PRIMARY KEY(`id`),
	CONSTRAINT `users_provider_external_id_uq` UNIQUE(`provider`,`external_id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`provider` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`event_id` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`claimed_at` datetime(0) NOT NULL,
	CONSTRAINT `webhook_events_pk` PRIMARY KEY(`provider`,`event_id`)
);
--> statement-breakpoint
CREATE INDEX `executions_repo_recent_idx` ON `executions` (`org_id`,`repo`,`created_at` DESC,`id` DESC);--> statement-breakpoint
CREATE INDEX `executions_branch_recent_idx` ON `executions` (`org_id`,`repo`,`branch`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_baseline_idx` ON `executions` (`org_id`,`repo`,`branch`,`baseline_eligible`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tokens_org_created_idx` ON `tokens` (`org_id`,`created_at`,`id`);