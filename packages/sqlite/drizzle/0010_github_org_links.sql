CREATE TABLE `github_org_links` (
	`org_id` text PRIMARY KEY NOT NULL,
	`github_org` text NOT NULL,
	`linked_by` text NOT NULL,
	`linked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `github_org_links_github_org_uq` ON `github_org_links` (`github_org`);--> statement-breakpoint
ALTER TABLE `memberships` ADD `source` text;