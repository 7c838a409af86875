ALTER TABLE `repository_links` CHANGE COLUMN `github_repo` `repository` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL;--> statement-breakpoint
ALTER TABLE `repository_links` ADD `host` varchar(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT 'github';
