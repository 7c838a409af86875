/**
 * The queries the MySQL and SQLite stores share: written once against the query builder both
 * drizzle dialects have ({@link QueryDb}), bundled into each store at build. What a dialect
 * does its own way (transactions, conditional inserts, upserts) stays in its store.
 */
export { executionColumns, filterConditions, newestFirst, selectExecutions } from './columns.js';
export type { SqlContext, SqlDialect } from './dialect.js';
export type { Lookups } from './lookups.js';
export { mergeQueries } from './merge-queries.js';
export { type LastAppliedAt, migrationsIn } from './migrations.js';
export { commitReportRow, partsRevisionIs, partUploadRow } from './queries/commit-reports.js';
export { findIdempotencyKey, type KeyedWrite, keyedInsert } from './queries/idempotency.js';
export { findMembership, isMember } from './queries/members.js';
export { dueDeliveries, leaseTaken } from './queries/outbox.js';
export { webUrlClaim } from './queries/repositories.js';
export { isUsableSignInLink } from './queries/sessions.js';
export type {
  Changes,
  Condition,
  PreparedQuery,
  QueryDb,
  SqlTable,
  WriteQuery,
} from './query-db.js';
export { first } from './rows.js';
export {
  type OwnQueries,
  type SqlStoreParts,
  sharedQueries,
  sqlContext,
  sqlStore,
} from './sql-store.js';
export type { Tables } from './tables.js';
