CREATE TABLE `execution_counters` (
	`org_id` text NOT NULL,
	`repo` text NOT NULL,
	`total` integer NOT NULL,
	PRIMARY KEY(`org_id`, `repo`)
);
--> statement-breakpoint
CREATE TABLE `executions` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`repo` text NOT NULL,
	`branch` text NOT NULL,
	`outcome` text NOT NULL,
	`delta` text NOT NULL,
	`coverage` real NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `executions_repo_recent_idx` ON `executions` (`org_id`,`repo`,"created_at" DESC,"id" DESC);--> statement-breakpoint
CREATE INDEX `executions_branch_recent_idx` ON `executions` (`org_id`,`repo`,`branch`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `executions_baseline_idx` ON `executions` (`org_id`,`repo`,`branch`,`created_at`,`id`) WHERE "outcome" <> 'fail';--> statement-breakpoint
CREATE TABLE `organisations` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`plan` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organisations_slug_uq` ON `organisations` (`slug`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`org_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_token_hash_uq` ON `sessions` (`token_hash`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`scopes` text NOT NULL,
	`agent_type` text NOT NULL,
	`hash` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`grace_period_ends_at` integer
);
--> statement-breakpoint
CREATE INDEX `tokens_org_created_idx` ON `tokens` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`external_id` text NOT NULL,
	`login` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_provider_external_id_uq` ON `users` (`provider`,`external_id`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`provider` text NOT NULL,
	`event_id` text NOT NULL,
	`claimed_at` integer NOT NULL,
	PRIMARY KEY(`provider`, `event_id`)
);
