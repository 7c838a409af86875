CREATE TABLE `organisation_settings` (
	`org_id` text PRIMARY KEY NOT NULL,
	`min_patch_target` real,
	`min_project_target` real,
	`updated_by` text NOT NULL,
	`updated_at` integer NOT NULL
);
