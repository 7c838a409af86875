export type { MigrationResult, MigrationStatus } from '@covgate/core/storage-kit';
export { SqliteStoreError, type StoreComponent, type StoreLogger } from './failures.js';
export {
  MIGRATIONS_FOLDER,
  type MigrationOptions,
  type MigrationTarget,
  migrate,
  migrationStatus,
  shippedMigrations,
} from './migrate.js';
export * as schema from './schema.js';
export { createSqliteStore, DEFAULT_SQLITE_URL, type SqliteStoreOptions } from './sqlite-store.js';
