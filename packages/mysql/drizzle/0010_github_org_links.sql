CREATE TABLE `github_org_links` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`github_org` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`linked_by` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`linked_at` datetime(0) NOT NULL,
	CONSTRAINT `github_org_links_org_id` PRIMARY KEY(`org_id`),
	CONSTRAINT `github_org_links_github_org_uq` UNIQUE(`github_org`)
);
--> statement-breakpoint
ALTER TABLE `memberships` ADD `source` enum('github-org');