import { fileURLToPath } from 'node:url';
import type { MigrationOptions, MigrationResult, MigrationStatus } from '@covgate/core/storage-kit';
import { migrationsIn } from '@covgate/sql-kit';
import { createClient } from '@libsql/client';
import { sql } from 'drizzle-orm';
import { drizzle, type LibSQLDatabase } from 'drizzle-orm/libsql';
import { migrate as applyMigrations } from 'drizzle-orm/libsql/migrator';

/**
 * The shipped drizzle-kit migrations. `src/` and `dist/` are siblings of `drizzle/`, so the
 * same relative path works from the sources (tests) and from the build.
 */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/** A database to migrate: a drizzle database of yours, or a libsql URL to open. */
export type MigrationTarget = LibSQLDatabase<Record<string, unknown>> | { url: string };

/** The shipped migrations, from drizzle-kit's journal. */
export function shippedMigrations(options: MigrationOptions = {}) {
  return migrationsIn(MIGRATIONS_FOLDER, options).journal();
}

/** The newest `created_at` in `__drizzle_migrations`, null when the table is absent or empty. */
async function lastAppliedAt(db: LibSQLDatabase<Record<string, unknown>>): Promise<number | null> {
  const tables = await db.all<{ n: number }>(
    sql`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`,
  );
  if (Number(tables[0]?.n) === 0) return null;
  const rows = await db.all<{ last: number | null }>(
    sql`SELECT MAX(created_at) AS last FROM "__drizzle_migrations"`,
  );
  const last = rows[0]?.last;
  return last === null || last === undefined ? null : Number(last);
}

/** Runs `work` on the target's drizzle database, opening (and closing) one for a URL. */
async function onTarget<T>(
  target: MigrationTarget,
  work: (db: LibSQLDatabase<Record<string, unknown>>) => Promise<T>,
): Promise<T> {
  if (!('url' in target)) return work(target);
  const client = createClient({ url: target.url });
  try {
    return await work(drizzle(client));
  } finally {
    client.close();
  }
}

/** Where the database's schema stands against the shipped migrations, without changing it. */
export async function migrationStatus(
  target: MigrationTarget,
  options: MigrationOptions = {},
): Promise<MigrationStatus> {
  return onTarget(target, (db) =>
    migrationsIn(MIGRATIONS_FOLDER, options).status(() => lastAppliedAt(db)),
  );
}

/**
 * Applies the shipped migrations that the database has not seen yet (tracked in
 * `__drizzle_migrations`), all in one transaction; running it again is a no-op. Resolves with
 * the schema's version before and after and the migrations applied. Meant for one process at
 * start-up (`createSqliteStore` calls it unless told not to).
 */
export async function migrate(
  target: MigrationTarget,
  options: MigrationOptions = {},
): Promise<MigrationResult> {
  return onTarget(target, (db) =>
    migrationsIn(MIGRATIONS_FOLDER, options).migrate(
      () => lastAppliedAt(db),
      (migrationsFolder) => applyMigrations(db, { migrationsFolder }),
    ),
  );
}
