import type { Store } from '@covgate/core';
import type { StoreLogger } from '@covgate/core/storage-kit';
import { mergeQueries, sqlStore } from '@covgate/sql-kit';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { isDuplicateKey, SqliteStoreError } from './failures.js';
import { migrate } from './migrate.js';
import { sqliteDialect } from './queries/context.js';
import * as ownQueries from './queries/index.js';

/** Where the embedded database lives when no `url` is given: `covgate.db` in the working directory. */
export const DEFAULT_SQLITE_URL = 'file:./covgate.db';

/**
 * How long a write waits for another process's lock on the file before failing: the same
 * 2 s bound as every other store call, so a locked file answers 500 instead of hanging.
 */
const BUSY_TIMEOUT_MS = 2000;

/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** `file:./covgate.db` (default), `file:/var/lib/covgate/covgate.db`, or `:memory:`. */
  url?: string;
  /** Apply the shipped migrations on open (default true). */
  migrate?: boolean;
  /** Receives infrastructure failure lines (default `console`). */
  logger?: StoreLogger;
}

/**
 * Opens the embedded {@link Store}: one SQLite file through libsql's prebuilt engine, no
 * server, no compiler. The file is put in WAL mode with a busy timeout, and the shipped
 * migrations are applied unless `migrate: false`.
 *
 * Every statement runs synchronously inside libsql, so calls through one store never
 * interleave inside a statement; multi-statement writes go in one `batch` (a single
 * transaction), never in an interactive transaction, which libsql would run on a second
 * connection (and, for `:memory:`, a second, empty database).
 */
export async function createSqliteStore(options: SqliteStoreOptions = {}): Promise<Store> {
  const logger = options.logger ?? console;
  const client = createClient({ url: options.url ?? DEFAULT_SQLITE_URL });
  const db = drizzle(client);
  try {
    await client.execute(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    await client.execute('PRAGMA journal_mode = WAL');
    if (options.migrate !== false) await migrate(db);
  } catch (error) {
    client.close();
    throw error;
  }

  return sqlStore({
    // No deadline: libsql runs each statement synchronously, and the busy timeout bounds the
    // only wait, a lock held by another process.
    guard: {
      logger,
      isDuplicateKey,
      failure: (component, operation, code) => new SqliteStoreError(component, operation, code),
    },
    dialect: sqliteDialect(db),
    ownQueries: (shared) => mergeQueries({ db, shared }, ownQueries),
    ping: async () => {
      await client.execute('SELECT 1');
    },
    close: async () => {
      client.close();
    },
  });
}
