ALTER TABLE `organisations` ADD `personal_user_id` text;--> statement-breakpoint
ALTER TABLE `organisations` ADD `plan_changed_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `organisations_personal_user_uq` ON `organisations` (`personal_user_id`);--> statement-breakpoint
UPDATE `organisations` SET `personal_user_id` = (SELECT `u`.`id` FROM `users` `u` WHERE `u`.`provider` || '-' || `u`.`external_id` = `organisations`.`slug` AND `u`.`created_at` <= `organisations`.`created_at`);
