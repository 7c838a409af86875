import type { QueryDb, SqlContext, SqlDialect } from '@covgate/sql-kit';
import { eq, sql } from 'drizzle-orm';
import type { MySqlTable } from 'drizzle-orm/mysql-core';
import type { MySql2Database } from 'drizzle-orm/mysql2';
import type { ResultSetHeader } from 'mysql2/promise';
import * as schema from '../schema.js';

/** The drizzle database over the store's mysql2 pool. */
export type Db = MySql2Database;

/** What this store's own queries run on: its typed database and the shared context. */
export interface QueryContext {
  readonly db: Db;
  readonly shared: SqlContext;
}

/** Rows changed (or matched: mysql2 sets FOUND_ROWS) by a write. */
export const affected = (result: [ResultSetHeader, unknown]): number => result[0].affectedRows;

/** A statement drizzle prepared over mysql2, as it runs it. */
interface Prepared {
  execute(parameters: Record<string, unknown>): Promise<never[]>;
}

/**
 * MySQL's side of the shared queries. The prepared lookups skip building their SQL on each
 * call; they still run through the pool's `query`, as every other statement, so a failure
 * reaches the guard alike.
 */
export const mysqlDialect = (db: Db): SqlDialect => ({
  // The shared queries use only what mysql2's and libsql's builders both have.
  db: db as unknown as QueryDb,
  tables: schema,
  baselineEligible: eq(schema.executions.baselineEligible, true),
  run: (query, parameters) => (query as unknown as Prepared).execute(parameters),
  affected: (result) => affected(result as [ResultSetHeader, unknown]),
  // A no-op update on a duplicate identity: no error, and unlike INSERT IGNORE no other
  // failure (an over-long value...) is silenced.
  insertUserOnce: (user) =>
    db
      .insert(schema.users)
      .values(user)
      .onDuplicateKeyUpdate({ set: { id: sql`${schema.users.id}` } }),
  upsert: async (table, _key, row, changes) => {
    // ON DUPLICATE KEY UPDATE finds the row by the table's own unique key: `key` is that key.
    const mysqlTable = table as unknown as MySqlTable;
    await db
      .insert(mysqlTable)
      .values(row as MySqlTable['$inferInsert'])
      .onDuplicateKeyUpdate({ set: changes });
  },
});
