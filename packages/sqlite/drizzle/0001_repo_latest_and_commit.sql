ALTER TABLE `execution_counters` ADD `latest_id` text;--> statement-breakpoint
ALTER TABLE `execution_counters` ADD `latest_created_at` integer;--> statement-breakpoint
ALTER TABLE `executions` ADD `commit` text;--> statement-breakpoint
UPDATE `execution_counters` SET `latest_id` = (SELECT `e`.`id` FROM `executions` `e` WHERE `e`.`org_id` = `execution_counters`.`org_id` AND `e`.`repo` = `execution_counters`.`repo` ORDER BY `e`.`created_at` DESC, `e`.`id` DESC LIMIT 1);--> statement-breakpoint
UPDATE `execution_counters` SET `latest_created_at` = (SELECT `e`.`created_at` FROM `executions` `e` WHERE `e`.`id` = `execution_counters`.`latest_id`);
