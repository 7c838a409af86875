CREATE TABLE `execution_lines` (
	`execution_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`data` mediumblob NOT NULL,
	CONSTRAINT `execution_lines_execution_id` PRIMARY KEY(`execution_id`)
);
