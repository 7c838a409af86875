export type {
  MigrationOptions,
  MigrationResult,
  MigrationStatus,
} from '@covgate/core/storage-kit';
export { type MySqlUrl, parseMySqlUrl, type SslMode } from './connection-url.js';
export {
  MySqlStoreError,
  type StoreComponent,
  type StoreLogger,
} from './failures.js';
// The migration module is public as a whole: migrate, its status, the shipped journal.
export * from './migrate.js';
export { createMySqlStore, type MySqlStoreOptions } from './mysql-store.js';
export {
  connectionOptionsFor,
  DEFAULT_POOL_SIZE,
  type PoolSettings,
  poolOptionsFor,
} from './pool-options.js';
export * as schema from './schema.js';
