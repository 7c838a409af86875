CREATE TABLE `pruned_executions` (
	`execution_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`pruned_at` datetime(0) NOT NULL,
	CONSTRAINT `pruned_executions_execution_id` PRIMARY KEY(`execution_id`)
);
