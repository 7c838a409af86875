export type { MigrationResult, MigrationStatus } from '@covgate/core/storage-kit';
export { type MySqlUrl, parseMySqlUrl, type SslMode } from './connection-url.js';
export {
  MySqlStoreError,
  type StoreComponent,
  type StoreLogger,
} from './failures.js';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  MIGRATIONS_FOLDER,
  type MigrationOptions,
  type MigrationTarget,
  migrate,
  migrationStatus,
  shippedMigrations,
} from './migrate.js';
export { createMySqlStore, type MySqlStoreOptions } from './mysql-store.js';
export {
  connectionOptionsFor,
  DEFAULT_POOL_SIZE,
  type PoolSettings,
  poolOptionsFor,
} from './pool-options.js';
export * as schema from './schema.js';
