CREATE TABLE `memberships` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`user_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`role` enum('owner','admin','member') NOT NULL,
	`created_at` datetime(0) NOT NULL,
	CONSTRAINT `memberships_pk` PRIMARY KEY(`org_id`,`user_id`)
);
--> statement-breakpoint
ALTER TABLE `sign_in_links` ADD `role` enum('owner','admin','member') DEFAULT 'owner' NOT NULL;--> statement-breakpoint
CREATE INDEX `memberships_user_idx` ON `memberships` (`user_id`);--> statement-breakpoint
INSERT INTO `memberships` (`org_id`, `user_id`, `role`, `created_at`) SELECT `id`, `personal_user_id`, 'owner', `created_at` FROM `organisations` WHERE `personal_user_id` IS NOT NULL;--> statement-breakpoint
INSERT IGNORE INTO `memberships` (`org_id`, `user_id`, `role`, `created_at`) SELECT `s`.`org_id`, `s`.`user_id`, 'owner', MIN(`s`.`created_at`) FROM `sessions` `s` JOIN `organisations` `o` ON `o`.`id` = `s`.`org_id` GROUP BY `s`.`org_id`, `s`.`user_id`;
