ALTER TABLE `organisations` ADD `personal_user_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `organisations` ADD `plan_changed_at` datetime(0);--> statement-breakpoint
ALTER TABLE `organisations` ADD CONSTRAINT `organisations_personal_user_uq` UNIQUE(`personal_user_id`);--> statement-breakpoint
UPDATE `organisations` `o` JOIN `users` `u` ON `o`.`slug` = CONCAT(`u`.`provider`, '-', `u`.`external_id`) AND `o`.`created_at` >= `u`.`created_at` SET `o`.`personal_user_id` = `u`.`id`;
