CREATE TABLE `organisation_links` (
	`org_id` text PRIMARY KEY NOT NULL,
	`host` text DEFAULT 'github' NOT NULL,
	`organisation` text NOT NULL,
	`linked_by` text NOT NULL,
	`linked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organisation_links_host_organisation_uq` ON `organisation_links` (`host`,`organisation`);--> statement-breakpoint
INSERT INTO `organisation_links` (`org_id`, `host`, `organisation`, `linked_by`, `linked_at`) SELECT `org_id`, 'github', `github_org`, `linked_by`, `linked_at` FROM `github_org_links`;--> statement-breakpoint
DROP TABLE `github_org_links`;