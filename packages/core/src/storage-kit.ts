/**
 * `@covgate/core/storage-kit`: the plumbing every SQL `Store` shares, free of any database
 * driver: the guard each store call runs through (deadline, duplicate key to
 * `StoreConflictError`, one log line per failure, the dialect's `StoreFailureError`), the
 * failure lines with secrets redacted, the column lists and row mappers, and the
 * idempotent-insert loop. A dialect keeps its schema, its queries and its error classifier.
 * See docs/stores.md, "Writing a store with the kit".
 */

export { parseParts, serialiseParts } from './executions/parts.js';
export {
  DEFAULT_DEADLINE_MS,
  DeadlineExceededError,
  withDeadline,
} from './storage/kit/deadline.js';
export {
  DELIVERY_ERROR_MAX,
  type DeliverySettlement,
  deliveryError,
  deliveryRows,
  deliverySettlements,
  leaseEnd,
  outboxStatsOf,
} from './storage/kit/deliveries.js';
export {
  idempotencyKeyRow,
  inviteRow,
  isInviteOpen,
  type RepositoryUpsert,
  repositoryLinkUpsert,
  repositorySettingsUpsert,
  signInLinkRow,
} from './storage/kit/entity-rows.js';
export { isEmptyFilter } from './storage/kit/execution-filter.js';
export {
  errorCode,
  failureLine,
  redact,
  rootCause,
  type StoreComponent,
  type StoreLogger,
} from './storage/kit/failures.js';
export { createStoreGuard, type StoreGuard, type StoreGuardOptions } from './storage/kit/guard.js';
export {
  insertKeyedExecution,
  KEYED_INSERT_ATTEMPTS,
  type KeyedInsertSteps,
  liveExecution,
  type StoredIdempotencyKey,
} from './storage/kit/keyed-insert.js';
export {
  type JournalEntry,
  type MigrationOptions,
  type MigrationResult,
  type MigrationStatus,
  migrationLine,
  migrationStatusOf,
} from './storage/kit/migration-status.js';
export {
  guardedStore,
  type OperationSpec,
  STORE_OPERATIONS,
  type StoreMethods,
  type StoreOperation,
} from './storage/kit/operations.js';
export {
  executionRow,
  firstCounterRow,
  membershipOf,
  ORGANISATION_FIELDS,
  pickColumns,
  sessionRow,
  tokenTimestamps,
  wholeSecondOrNull,
} from './storage/kit/rows.js';
export { EXECUTION_FIELDS, EXECUTION_POINT_FIELDS } from './storage/records/executions.js';
export { INVITE_MAKER_ROLE, makerMayStillInvite } from './storage/records/invites.js';
export { wholeSeconds } from './time/timestamp.js';
