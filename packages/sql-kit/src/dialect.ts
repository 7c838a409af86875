import type { User } from '@covgate/core';
import type { SQL } from 'drizzle-orm';
import type { Lookups } from './lookups.js';
import type { PreparedQuery, QueryDb, SqlTable } from './query-db.js';
import type { Tables } from './tables.js';

/**
 * What differs between the SQL stores where the statements themselves do not: how a prepared
 * statement runs, how a write reports the rows it changed, and the upsert's syntax.
 */
export interface SqlDialect {
  readonly db: QueryDb;
  readonly tables: Tables;
  /** The condition of a run that may serve as a baseline, as the dialect's index states it. */
  readonly baselineEligible: SQL;
  /** Runs a statement built once by {@link prepareLookups}. */
  run<Row>(query: PreparedQuery<Row>, parameters: Record<string, unknown>): Promise<Row[]>;
  /** The rows a write changed (matched, on MySQL), from what awaiting it gave. */
  affected(result: unknown): number;
  /** Inserts the user unless one with its provider identity exists (the dialect's own no-op). */
  insertUserOnce(user: User): Promise<unknown>;
  /** Inserts `row`, or applies `changes` to the row with the same `key` columns. */
  upsert<Row>(
    table: SqlTable<Row>,
    key: readonly (keyof Row)[],
    row: Partial<Row>,
    changes: Partial<Row>,
  ): Promise<void>;
}

/** What every shared query runs on: the dialect and its statements built once. */
export interface SqlContext extends SqlDialect {
  readonly lookups: Lookups;
}
