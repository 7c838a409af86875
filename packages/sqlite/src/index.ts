export { SqliteStoreError, type StoreComponent, type StoreLogger } from './failures.js';
export { MIGRATIONS_FOLDER, type MigrationTarget, migrate } from './migrate.js';
export * as schema from './schema.js';
export { createSqliteStore, DEFAULT_SQLITE_URL, type SqliteStoreOptions } from './sqlite-store.js';
