ALTER TABLE `execution_counters` ADD `latest_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `execution_counters` ADD `latest_created_at` datetime(0);--> statement-breakpoint
ALTER TABLE `executions` ADD `commit` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
UPDATE `execution_counters` `c` SET `c`.`latest_id` = (SELECT `e`.`id` FROM `executions` `e` WHERE `e`.`org_id` = `c`.`org_id` AND `e`.`repo` = `c`.`repo` ORDER BY `e`.`created_at` DESC, `e`.`id` DESC LIMIT 1);--> statement-breakpoint
UPDATE `execution_counters` `c` SET `c`.`latest_created_at` = (SELECT `e`.`created_at` FROM `executions` `e` WHERE `e`.`id` = `c`.`latest_id`);
