import type { QueryDb, SqlContext, SqlDialect } from '@covgate/sql-kit';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../schema.js';

/** The drizzle database over the store's libsql client. */
export type Db = LibSQLDatabase;

/** What this store's own queries run on: its typed database and the shared context. */
export interface QueryContext {
  readonly db: Db;
  readonly shared: SqlContext;
}

/** A statement libsql prepared, as drizzle runs it. */
interface Prepared {
  all(parameters: Record<string, unknown>): Promise<never[]>;
}

/** SQLite's side of the shared queries. */
export const sqliteDialect = (db: Db): SqlDialect => ({
  // The shared queries use only what libsql's and mysql2's builders both have.
  db: db as unknown as QueryDb,
  tables: schema,
  // Word for word the partial index's condition, so SQLite can use that index.
  baselineEligible: schema.BASELINE_ELIGIBLE,
  run: (query, parameters) => (query as unknown as Prepared).all(parameters),
  affected: (result) => (result as { rowsAffected: number }).rowsAffected,
  insertUserOnce: (user) =>
    db
      .insert(schema.users)
      .values(user)
      .onConflictDoNothing({ target: [schema.users.provider, schema.users.externalId] }),
  upsert: async (table, key, row, changes) => {
    const target = key.map((column) => table[column]) as unknown as SQLiteColumn[];
    const sqliteTable = table as unknown as SQLiteTable;
    await db
      .insert(sqliteTable)
      .values(row as SQLiteTable['$inferInsert'])
      .onConflictDoUpdate({ target, set: changes });
  },
});
