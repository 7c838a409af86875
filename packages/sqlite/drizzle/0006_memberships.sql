CREATE TABLE `memberships` (
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `memberships_user_idx` ON `memberships` (`user_id`);--> statement-breakpoint
ALTER TABLE `sign_in_links` ADD `role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
INSERT INTO `memberships` (`org_id`, `user_id`, `role`, `created_at`) SELECT `id`, `personal_user_id`, 'owner', `created_at` FROM `organisations` WHERE `personal_user_id` IS NOT NULL;--> statement-breakpoint
INSERT OR IGNORE INTO `memberships` (`org_id`, `user_id`, `role`, `created_at`) SELECT `s`.`org_id`, `s`.`user_id`, 'owner', MIN(`s`.`created_at`) FROM `sessions` `s` JOIN `organisations` `o` ON `o`.`id` = `s`.`org_id` GROUP BY `s`.`org_id`, `s`.`user_id`;
