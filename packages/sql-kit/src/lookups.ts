import { and, eq, sql } from 'drizzle-orm';
import { newestFirst, selectExecutions, selectOrganisations } from './columns.js';
import type { QueryDb } from './query-db.js';
import type { Tables } from './tables.js';

/**
 * The lookups of every authenticated request and every list, built once: drizzle spends as
 * long building a query's SQL as the database spends running one of these (about 80 µs).
 */
export function prepareLookups(db: QueryDb, tables: Tables) {
  const { tokens, organisations, sessions, users, memberships, executionCounters, executions } =
    tables;
  const byId = sql.placeholder('id');
  return {
    tokenById: db.select().from(tokens).where(eq(tokens.id, byId)).limit(1).prepare(),
    organisationById: selectOrganisations(db, tables)
      .where(eq(organisations.id, byId))
      .limit(1)
      .prepare(),
    organisationBySlug: selectOrganisations(db, tables)
      .where(eq(organisations.slug, sql.placeholder('slug')))
      .limit(1)
      .prepare(),
    sessionByTokenHash: db
      .select()
      .from(sessions)
      .where(eq(sessions.tokenHash, sql.placeholder('tokenHash')))
      .limit(1)
      .prepare(),
    sessionById: db.select().from(sessions).where(eq(sessions.id, byId)).limit(1).prepare(),
    userById: db.select().from(users).where(eq(users.id, byId)).limit(1).prepare(),
    member: db
      .select()
      .from(memberships)
      .where(
        and(
          eq(memberships.orgId, sql.placeholder('orgId')),
          eq(memberships.userId, sql.placeholder('userId')),
        ),
      )
      .limit(1)
      .prepare(),
    executionTotal: db
      .select<{ total: number }>({ total: executionCounters.total })
      .from(executionCounters)
      .where(
        and(
          eq(executionCounters.orgId, sql.placeholder('orgId')),
          eq(executionCounters.repo, sql.placeholder('repo')),
        ),
      )
      .prepare(),
    firstExecutions: selectExecutions(db, tables)
      .where(
        and(
          eq(executions.orgId, sql.placeholder('orgId')),
          eq(executions.repo, sql.placeholder('repo')),
        ),
      )
      .orderBy(...newestFirst(tables))
      .limit(sql.placeholder('limit'))
      .prepare(),
  };
}

/** The prepared lookups of one store. */
export type Lookups = ReturnType<typeof prepareLookups>;
