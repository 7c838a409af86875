CREATE TABLE `idempotency_keys` (
	`org_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`idempotency_key` varchar(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	`request_digest` varchar(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	`execution_id` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
	`created_at` datetime(0) NOT NULL,
	`expires_at` datetime(0) NOT NULL,
	CONSTRAINT `idempotency_keys_pk` PRIMARY KEY(`org_id`,`idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires_idx` ON `idempotency_keys` (`expires_at`);