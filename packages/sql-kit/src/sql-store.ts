import type { Store } from '@covgate/core';
import {
  createStoreGuard,
  guardedStore,
  type StoreGuardOptions,
  type StoreMethods,
} from '@covgate/core/storage-kit';
import type { SqlContext, SqlDialect } from './dialect.js';
import { prepareLookups } from './lookups.js';
import { mergeQueries } from './merge-queries.js';
import * as queries from './queries/index.js';

/** The dialect with its lookups built once. */
export const sqlContext = (dialect: SqlDialect): SqlContext => ({
  ...dialect,
  lookups: prepareLookups(dialect.db, dialect.tables),
});

/** Every query both stores run alike. */
export const sharedQueries = (context: SqlContext) => mergeQueries(context, queries);

/** The store methods a dialect writes itself: all but the shared queries, `ping` and `close`. */
export type OwnQueries = Omit<
  StoreMethods,
  keyof ReturnType<typeof sharedQueries> | 'ping' | 'close'
>;

/** What a SQL store brings of its own to {@link sqlStore}. */
export interface SqlStoreParts {
  /** How the guard classifies, logs and rethrows a failure. */
  readonly guard: StoreGuardOptions;
  readonly dialect: SqlDialect;
  /** The dialect's own queries (transactions, conditional writes), given the shared context. */
  ownQueries(shared: SqlContext): OwnQueries;
  /** Not guarded: a load balancer probing a down database must not flood the log. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The {@link Store}: the shared queries and the dialect's own, each call through one guard. */
export function sqlStore(parts: SqlStoreParts): Store {
  const shared = sqlContext(parts.dialect);
  return guardedStore(createStoreGuard(parts.guard), {
    ...sharedQueries(shared),
    ...parts.ownQueries(shared),
    ping: parts.ping,
    close: parts.close,
  });
}
