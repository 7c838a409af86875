export type {
  MigrationOptions,
  MigrationResult,
  MigrationStatus,
} from '@covgate/core/storage-kit';
export { SqliteStoreError, type StoreComponent, type StoreLogger } from './failures.js';
// The migration module is public as a whole: migrate, its status, the shipped journal.
export * from './migrate.js';
export * as schema from './schema.js';
export { createSqliteStore, DEFAULT_SQLITE_URL, type SqliteStoreOptions } from './sqlite-store.js';
