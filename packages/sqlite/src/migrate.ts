import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate as applyMigrations } from 'drizzle-orm/libsql/migrator';

/**
 * The shipped drizzle-kit migrations. `src/` and `dist/` are siblings of `drizzle/`, so the
 * same relative path works from the sources (tests) and from the build.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/** A database to migrate: a drizzle database of yours, or a libsql URL to open. */
export type MigrationTarget = LibSQLDatabase<Record<string, unknown>> | { url: string };

/**
 * Applies the shipped migrations that the database has not seen yet (tracked in
 * `__drizzle_migrations`), all in one transaction; running it again is a no-op. Meant for one
 * process at start-up (`createSqliteStore` calls it unless told not to).
 */
export async function migrate(target: MigrationTarget): Promise<void> {
  if (!('url' in target)) {
    await applyMigrations(target, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  const client = createClient({ url: target.url });
  try {
    await applyMigrations(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    client.close();
  }
}
