CREATE TABLE `execution_lines` (
	`execution_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`data` blob NOT NULL
);
