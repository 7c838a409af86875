CREATE TABLE `invites` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`token_hash` varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`role` enum('owner','admin','member') NOT NULL,
	`created_by` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`created_at` datetime(0) NOT NULL,
	`expires_at` datetime(0) NOT NULL,
	`accepted_by` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
	`accepted_at` datetime(0),
	`revoked_at` datetime(0),
	CONSTRAINT `invites_id` PRIMARY KEY(`id`),
	CONSTRAINT `invites_token_hash_uq` UNIQUE(`token_hash`)
);
--> statement-breakpoint
CREATE INDEX `invites_org_created_idx` ON `invites` (`org_id`,`created_at`,`id`);