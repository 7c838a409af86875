ALTER TABLE `repository_links` RENAME COLUMN `github_repo` TO `repository`;--> statement-breakpoint
ALTER TABLE `repository_links` ADD `host` text DEFAULT 'github' NOT NULL;
