CREATE TABLE `pruned_executions` (
	`execution_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`pruned_at` integer NOT NULL
);
