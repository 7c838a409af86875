CREATE TABLE `sign_in_links` (
	`id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`token_hash` varchar(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`user_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`created_at` datetime(0) NOT NULL,
	`expires_at` datetime(0) NOT NULL,
	`used_at` datetime(0),
	CONSTRAINT `sign_in_links_id` PRIMARY KEY(`id`),
	CONSTRAINT `sign_in_links_token_hash_uq` UNIQUE(`token_hash`)
);
