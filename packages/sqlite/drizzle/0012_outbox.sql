CREATE TABLE `deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`repo` text NOT NULL,
	`execution_id` text NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_owner` text,
	`lease_until` integer,
	`last_error` text,
	`last_status` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `deliveries_claim_idx` ON `deliveries` (`state`,`next_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_repo_state_idx` ON `deliveries` (`org_id`,`repo`,`state`,`updated_at`);--> statement-breakpoint
CREATE INDEX `deliveries_execution_idx` ON `deliveries` (`org_id`,`execution_id`);--> statement-breakpoint
CREATE TABLE `repository_links` (
	`org_id` text NOT NULL,
	`repo` text NOT NULL,
	`github_repo` text NOT NULL,
	`api_url` text DEFAULT 'https://api.github.com' NOT NULL,
	`credential` text NOT NULL,
	`credential_hint` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `repo`)
);
