/**
 * The queries the MySQL and SQLite stores share: written once against the query builder both
 * drizzle dialects have ({@link QueryDb}), bundled into each store at build. What a dialect
 * does its own way (transactions, conditional inserts, upserts) stays in its store.
 */
import type { SqlContext, SqlDialect } from './dialect.js';
import { prepareLookups } from './lookups.js';
import { executionQueries } from './queries/executions.js';
import { idempotencyQueries } from './queries/idempotency.js';
import { inviteQueries } from './queries/invites.js';
import { memberQueries } from './queries/members.js';
import { organisationQueries } from './queries/organisations.js';
import { outboxQueries } from './queries/outbox.js';
import { repositoryQueries } from './queries/repositories.js';
import { sessionQueries } from './queries/sessions.js';
import { tokenQueries } from './queries/tokens.js';
import { webhookQueries } from './queries/webhooks.js';

export { executionColumns, filterConditions, newestFirst, selectExecutions } from './columns.js';
export type { SqlContext, SqlDialect } from './dialect.js';
export type { Lookups } from './lookups.js';
export { findIdempotencyKey } from './queries/idempotency.js';
export { findMembership, isMember } from './queries/members.js';
export type {
  Changes,
  Condition,
  PreparedQuery,
  QueryDb,
  SqlTable,
  WriteQuery,
} from './query-db.js';
export { first } from './rows.js';
export type { Tables } from './tables.js';

/** The dialect with its lookups built once. */
export const sqlContext = (dialect: SqlDialect): SqlContext => ({
  ...dialect,
  lookups: prepareLookups(dialect.db, dialect.tables),
});

/** Every query both stores run alike. */
export const sharedQueries = (context: SqlContext) => ({
  ...organisationQueries(context),
  ...sessionQueries(context),
  ...tokenQueries(context),
  ...memberQueries(context),
  ...inviteQueries(context),
  ...executionQueries(context),
  ...idempotencyQueries(context),
  ...repositoryQueries(context),
  ...outboxQueries(context),
  ...webhookQueries(context),
});
