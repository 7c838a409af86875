import type { Store } from '@covgate/core';
import { DEFAULT_DEADLINE_MS, type StoreLogger, withDeadline } from '@covgate/core/storage-kit';
import { mergeQueries, sqlStore } from '@covgate/sql-kit';
import { drizzle } from 'drizzle-orm/mysql2';
import { createPool, type Pool, type SslOptions } from 'mysql2/promise';
import { parseMySqlUrl } from './connection-url.js';
import { isDuplicateKey, MySqlStoreError, overloadCode } from './failures.js';
import { poolOptionsFor } from './pool-options.js';
import { mysqlDialect } from './queries/context.js';
import * as ownQueries from './queries/index.js';

/** Options of {@link createMySqlStore}: a `url` (a pool is made) or your own `pool`. */
export interface MySqlStoreOptions {
  /** `mysql://user:password@host:3306/database?sslmode=verify-full`, see `parseMySqlUrl`. */
  url?: string;
  /**
   * A mysql2 promise pool you own; `close()` leaves it open. Keep mysql2's default
   * `FOUND_ROWS` flag: updates must report matched rows, not changed rows.
   */
  pool?: Pool;
  /** Size of the pool made from `url` (default 10). */
  poolSize?: number;
  /** TLS options for the pool made from `url` (`ca`, `cert`, `key`...). */
  ssl?: SslOptions;
  /** Receives infrastructure failure lines (default `console`). */
  logger?: StoreLogger;
  /**
   * Milliseconds one store call may take, waiting for a pooled connection, connecting and
   * querying included (default 2000); past it the call fails with code `ETIMEDOUT`.
   */
  deadlineMs?: number;
}

/**
 * Creates the MySQL/MariaDB {@link Store} over a mysql2 connection pool. The schema must
 * exist: run `migrate({ url })` first. Duplicate keys throw `StoreConflictError`; any other
 * failure is logged through `logger` with its component prefix (secrets redacted) and
 * rethrown as a {@link MySqlStoreError} whose message names no host, query or credential.
 */
export function createMySqlStore(options: MySqlStoreOptions): Store {
  const logger = options.logger ?? console;
  const { pool, owned, secrets } = openPool(options);
  const db = drizzle(pool);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  return sqlStore({
    guard: {
      logger,
      isDuplicateKey,
      failure: (component, operation, code) => new MySqlStoreError(component, operation, code),
      secrets,
      deadlineMs,
      overloadCode,
    },
    dialect: mysqlDialect(db),
    ownQueries: (shared) => mergeQueries({ db, shared }, ownQueries),
    ping: async () => {
      await withDeadline(deadlineMs, () => pool.query('SELECT 1'));
    },
    close: async () => {
      if (owned) await pool.end();
    },
  });
}

function openPool(options: MySqlStoreOptions): {
  pool: Pool;
  owned: boolean;
  secrets: string[];
} {
  if (options.pool !== undefined) {
    if (options.url !== undefined || options.poolSize !== undefined || options.ssl !== undefined) {
      throw new Error('url, poolSize and ssl make a pool: give them or a pool, not both');
    }
    return { pool: options.pool, owned: false, secrets: [] };
  }
  if (options.url === undefined) throw new Error('createMySqlStore needs a url or a pool');
  const url = parseMySqlUrl(options.url);
  const settings = {
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
    ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
  };
  return {
    pool: createPool(poolOptionsFor(url, settings)),
    owned: true,
    secrets: [options.url, url.password],
  };
}
