import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Store } from '@covgate/core';
import { createMySqlStore, migrate as migrateMySql } from '@covgate/mysql';
import { createSqliteStore } from '@covgate/sqlite';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';

/** Location of the embedded database file. */
export function embeddedDatabaseUrl(dataDir: string): string {
  return pathToFileURL(resolve(join(dataDir, 'covgate.db'))).href;
}

/**
 * Opens the store the configuration names and applies its migrations: MySQL when
 * `DATABASE_URL` is set, otherwise the embedded SQLite file in the data folder.
 */
export async function openStore(config: ServerConfig, logger: Logger): Promise<Store> {
  const storeLogger = { error: (line: string) => logger.error(line) };
  if (config.databaseUrl) {
    await migrateMySql({ url: config.databaseUrl });
    return createMySqlStore({ url: config.databaseUrl, logger: storeLogger });
  }
  await mkdir(config.dataDir, { recursive: true });
  return createSqliteStore({ url: embeddedDatabaseUrl(config.dataDir), logger: storeLogger });
}
