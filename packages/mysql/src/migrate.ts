import { fileURLToPath } from 'node:url';
import type { MigrationOptions, MigrationResult, MigrationStatus } from '@covgate/core/storage-kit';
import { migrationsIn } from '@covgate/sql-kit';
import { sql } from 'drizzle-orm';
import { drizzle, type MySql2Database } from 'drizzle-orm/mysql2';
import { migrate as applyMigrations } from 'drizzle-orm/mysql2/migrator';
import { type Connection, createConnection, type SslOptions } from 'mysql2/promise';
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

/** How long opening the migration connection may take when the target gives no bound. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** A database to migrate: a drizzle database of yours, or a URL to connect to. */
export type MigrationTarget =
  | MySql2Database<Record<string, unknown>>
  | {
      url: string;
      ssl?: SslOptions;
      /** Milliseconds the connection may take to open (default 10 000). */
      connectTimeoutMs?: number;
    };

/** The shipped migrations, from drizzle-kit's journal. */
export function shippedMigrations(options: MigrationOptions = {}) {
  return migrationsIn(MIGRATIONS_FOLDER, options).journal();
}

/** Runs one read-only statement and resolves with its rows. */
type Query = (text: string) => Promise<unknown>;

const onConnection =
  (connection: Connection): Query =>
  async (text) =>
    (await connection.query(text))[0];

const onDatabase =
  (db: MySql2Database<Record<string, unknown>>): Query =>
  async (text) =>
    (await db.execute(sql.raw(text)))[0];

/** The newest `created_at` in `__drizzle_migrations`, null when the table is absent or empty. */
async function lastAppliedAt(query: Query): Promise<number | null> {
  const tables = (await query(
    "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '__drizzle_migrations'",
  )) as Array<{ n: number | string }>;
  if (Number(tables[0]?.n) === 0) return null;
  const rows = (await query(
    'SELECT MAX(created_at) AS last FROM `__drizzle_migrations`',
  )) as Array<{
    last: number | string | null;
  }>;
  const last = rows[0]?.last;
  return last === null || last === undefined ? null : Number(last);
}

async function connect(target: Extract<MigrationTarget, { url: string }>): Promise<Connection> {
  return createConnection({
    ...connectionOptionsFor(parseMySqlUrl(target.url), target.ssl),
    connectTimeout: target.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  });
}

/**
 * Where the database's schema stands against the shipped migrations, without changing it.
 * Given a URL it opens one connection (bounded by `connectTimeoutMs`) and closes it.
 */
export async function migrationStatus(
  target: MigrationTarget,
  options: MigrationOptions = {},
): Promise<MigrationStatus> {
  if (!('url' in target))
    return migrationsIn(MIGRATIONS_FOLDER, options).status(() => lastAppliedAt(onDatabase(target)));
  const connection = await connect(target);
  try {
    return await migrationsIn(MIGRATIONS_FOLDER, options).status(() =>
      lastAppliedAt(onConnection(connection)),
    );
  } finally {
    await connection.end();
  }
}

const migrateOn = (
  db: MySql2Database<Record<string, unknown>>,
  options: MigrationOptions,
): Promise<MigrationResult> =>
  migrationsIn(MIGRATIONS_FOLDER, options).migrate(
    () => lastAppliedAt(onDatabase(db)),
    (migrationsFolder) => applyMigrations(db, { migrationsFolder }),
  );

/**
 * Applies the shipped migrations that the database has not seen yet (tracked in
 * `__drizzle_migrations`); running it again is a no-op. Resolves with the schema's version
 * before and after and the migrations applied. Given a URL it opens one connection, holds the
 * MySQL named lock `covgate_migrations` while migrating (so several instances may call it at
 * start-up) and closes the connection. Given your drizzle database, serialising concurrent
 * calls is up to you.
 */
export async function migrate(
  target: MigrationTarget,
  options: MigrationOptions = {},
): Promise<MigrationResult> {
  if (!('url' in target)) return migrateOn(target, options);
  const connection = await connect(target);
  try {
    const [rows] = await connection.query('SELECT GET_LOCK(?, ?) AS acquired', [
      LOCK_NAME,
      LOCK_TIMEOUT_SECONDS,
    ]);
    if ((rows as Array<{ acquired: number | null }>)[0]?.acquired !== 1) {
      throw new Error(`migrations lock not acquired within ${LOCK_TIMEOUT_SECONDS} s`);
    }
    try {
      return await migrateOn(drizzle(connection), options);
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME]);
    }
  } finally {
    await connection.end();
  }
}
