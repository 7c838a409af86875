CREATE TABLE `organisation_links` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`host` varchar(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'github',
	`organisation` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`linked_by` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`linked_at` datetime(0) NOT NULL,
	CONSTRAINT `organisation_links_org_id` PRIMARY KEY(`org_id`),
	CONSTRAINT `organisation_links_host_organisation_uq` UNIQUE(`host`,`organisation`)
);
--> statement-breakpoint
INSERT INTO `organisation_links` (`org_id`, `host`, `organisation`, `linked_by`, `linked_at`) SELECT `org_id`, 'github', `github_org`, `linked_by`, `linked_at` FROM `github_org_links`;--> statement-breakpoint
DROP TABLE `github_org_links`;--> statement-breakpoint
ALTER TABLE `memberships` MODIFY COLUMN `source` varchar(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;