CREATE TABLE `organisation_settings` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`min_patch_target` decimal(5,2),
	`min_project_target` decimal(5,2),
	`updated_by` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`updated_at` datetime(0) NOT NULL,
	CONSTRAINT `organisation_settings_org_id` PRIMARY KEY(`org_id`)
);
