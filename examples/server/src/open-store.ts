import { mkdir, open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Store } from '@covgate/core';
import {
  type MigrationResult,
  type MigrationStatus,
  migrationLine,
} from '@covgate/core/storage-kit';
import { parseMySqlUrl } from '@covgate/mysql/connection-url';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';
import { unreachableDatabase } from './database-errors.js';

/** Location of the embedded database file. */
export function embeddedDatabasePath(dataDir: string): string {
  return resolve(join(dataDir, 'covgate.db'));
}

/** Location of the embedded database file, as a libsql URL. */
export function embeddedDatabaseUrl(dataDir: string): string {
  return pathToFileURL(embeddedDatabasePath(dataDir)).href;
}

/** The schema is behind this release and migrations are off: the server must not start. */
export class SchemaBehindError extends Error {
  constructor(status: MigrationStatus) {
    const count = status.pending.length;
    super(
      `the database schema is at ${status.current ?? 'none'} and this release needs ${status.latest} (${count} pending migration${count === 1 ? '' : 's'}); migrations are off (--no-migrate or COVGATE_MIGRATE=off): run covgate-admin migrate up, then start again`,
    );
    this.name = 'SchemaBehindError';
  }
}

/**
 * The data folder (0700) and an empty database file in it (0600) when they do not exist yet:
 * libsql would create the file with the process's umask (0644, readable by every local user),
 * and SQLite gives its `-wal` and `-shm` files the database file's mode.
 */
export async function prepareDataFolder(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = await open(embeddedDatabasePath(dataDir), 'a', 0o600);
  await file.close();
}

/**
 * The `drizzle` folder of an installed store package. The build inlines the stores' code, which
 * moves their own `import.meta.url` away from it; the package itself stays installed.
 */
function migrationsFolderOf(name: '@covgate/sqlite' | '@covgate/mysql'): string {
  return join(dirname(createRequire(import.meta.url).resolve(`${name}/package.json`)), 'drizzle');
}

/** The two stores' migration functions, loaded only for the store in use. */
interface Migrations {
  migrate(): Promise<MigrationResult>;
  status(): Promise<MigrationStatus>;
}

/**
 * Connection failures of the MySQL migration connection are rethrown naming the host, the
 * port and the time waited: the first thing an unreachable database shows at start.
 */
async function mysqlMigrations(config: ServerConfig, url: string): Promise<Migrations> {
  const { migrate, migrationStatus } = await import('@covgate/mysql');
  const { host, port } = parseMySqlUrl(url);
  const target = { url, connectTimeoutMs: config.databaseConnectTimeoutMs };
  const options = { migrationsFolder: migrationsFolderOf('@covgate/mysql') };
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } catch (error) {
      throw (
        unreachableDatabase(error, { host, port, waitedMs: performance.now() - started }) ?? error
      );
    }
  };
  return {
    migrate: () => timed(() => migrate(target, options)),
    status: () => timed(() => migrationStatus(target, options)),
  };
}

async function sqliteMigrations(url: string): Promise<Migrations> {
  const { migrate, migrationStatus } = await import('@covgate/sqlite');
  const options = { migrationsFolder: migrationsFolderOf('@covgate/sqlite') };
  return {
    migrate: () => migrate({ url }, options),
    status: () => migrationStatus({ url }, options),
  };
}

/** The migrations of the store the configuration names. */
export async function migrationsFor(config: ServerConfig): Promise<Migrations> {
  if (config.databaseUrl) return mysqlMigrations(config, config.databaseUrl);
  await prepareDataFolder(config.dataDir);
  return sqliteMigrations(embeddedDatabaseUrl(config.dataDir));
}

/**
 * Brings the schema to this release's version, or, with migrations off, checks it already is
 * ({@link SchemaBehindError} when not); logs one line saying which.
 */
async function settleSchema(config: ServerConfig, logger: Logger): Promise<void> {
  const migrations = await migrationsFor(config);
  if (config.migrate) {
    logger.info(migrationLine(await migrations.migrate()));
    return;
  }
  const status = await migrations.status();
  if (status.pending.length > 0) throw new SchemaBehindError(status);
  logger.info(
    `database schema up to date at ${status.current} (migrations off: COVGATE_MIGRATE=off or --no-migrate)`,
  );
}

/**
 * Opens the store the configuration names, MySQL when `DATABASE_URL` is set, otherwise the
 * embedded SQLite file in the data folder, after {@link settleSchema}. Only the store in use is
 * imported: loading drizzle's MySQL dialect alone takes most of a second on Node 24.
 */
export async function openStore(config: ServerConfig, logger: Logger): Promise<Store> {
  const storeLogger = {
    error: (line: string) => logger.error(line),
    info: (line: string) => logger.info(line),
  };
  await settleSchema(config, logger);
  if (config.databaseUrl) {
    const { createMySqlStore } = await import('@covgate/mysql');
    return createMySqlStore({
      url: config.databaseUrl,
      logger: storeLogger,
      ...(config.databasePoolSize === undefined ? {} : { poolSize: config.databasePoolSize }),
    });
  }
  const { createSqliteStore } = await import('@covgate/sqlite');
  return createSqliteStore({
    url: embeddedDatabaseUrl(config.dataDir),
    logger: storeLogger,
    migrate: false,
  });
}
