import { fileURLToPath } from 'node:url';
import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import { migrate as applyMigrations } from 'drizzle-orm/mysql2/migrator';
import { createConnection, type SslOptions } from 'mysql2/promise';
import { parseMySqlUrl } from './connection-url.js';
import { connectionOptionsFor } from './pool-options.js';

/**
 * The shipped drizzle-kit migrations. `src/` and `dist/` are siblings of `drizzle/`, so the
 * same relative path works from the sources (tests) and from the build.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/** Named lock that keeps two instances starting at once from migrating together. */
const LOCK_NAME = 'covgate_migrations';
const LOCK_TIMEOUT_SECONDS = 60;

/** A database to migrate: a drizzle database of yours, or a URL to connect to. */
export type MigrationTarget =
  | MySql2Database<Record<string, unknown>>
  | { url: string; ssl?: SslOptions };

/**
 * Applies the shipped migrations that the database has not seen yet (tracked in
 * `__drizzle_migrations`); running it again is a no-op. Given a URL it opens one connection,
 * holds the MySQL named lock `covgate_migrations` while migrating (so several instances may
 * call it at start-up) and closes the connection. Given your drizzle database, serialising
 * concurrent calls is up to you.
 */
export async function migrate(target: MigrationTarget): Promise<void> {
  if (!('url' in target)) {
    await applyMigrations(target, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  const connection = await createConnection(
    connectionOptionsFor(parseMySqlUrl(target.url), target.ssl),
  );
  try {
    const [rows] = await connection.query('SELECT GET_LOCK(?, ?) AS acquired', [
      LOCK_NAME,
      LOCK_TIMEOUT_SECONDS,
    ]);
    if ((rows as Array<{ acquired: number | null }>)[0]?.acquired !== 1) {
      throw new Error(`migrations lock not acquired within ${LOCK_TIMEOUT_SECONDS} s`);
    }
    try {
      await applyMigrations(drizzle(connection), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]);
    }
  } finally {
    await connection.end();
  }
}
