import type { Membership } from '@covgate/core';
import { membershipOf } from '@covgate/core/storage-kit';
import { and, eq, sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import {
  executionCounters,
  executions,
  memberships,
  organisations,
  sessions,
  tokens,
  users,
} from '../schema.js';
import { executionColumns, newestFirst, organisationColumns } from './columns.js';

/** The drizzle database over the store's libsql client. */
export type Db = LibSQLDatabase;

/**
 * The lookups of every authenticated request and every list, built once: drizzle spends as
 * long building a query's SQL as libsql spends running it (about 80 µs each here).
 */
export function prepareLookups(db: Db) {
  const byId = sql.placeholder('id');
  return {
    tokenById: db.select().from(tokens).where(eq(tokens.id, byId)).limit(1).prepare(),
    organisationById: db
      .select(organisationColumns)
      .from(organisations)
      .where(eq(organisations.id, byId))
      .limit(1)
      .prepare(),
    organisationBySlug: db
      .select(organisationColumns)
      .from(organisations)
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
      .select({ total: executionCounters.total })
      .from(executionCounters)
      .where(
        and(
          eq(executionCounters.orgId, sql.placeholder('orgId')),
          eq(executionCounters.repo, sql.placeholder('repo')),
        ),
      )
      .prepare(),
    firstExecutions: db
      .select(executionColumns)
      .from(executions)
      .where(
        and(
          eq(executions.orgId, sql.placeholder('orgId')),
          eq(executions.repo, sql.placeholder('repo')),
        ),
      )
      .orderBy(...newestFirst)
      .limit(sql.placeholder('limit'))
      .prepare(),
  };
}

/** The prepared lookups of one store. */
export type Lookups = ReturnType<typeof prepareLookups>;

/** What every entity's queries run on. */
export interface QueryContext {
  readonly db: Db;
  readonly prepared: Lookups;
}

/** The first row of a query's answer, or null. */
export const first = async <T>(rows: PromiseLike<T[]>): Promise<T | null> =>
  (await rows)[0] ?? null;

/** The member's membership, or null. */
export const findMembership = async (
  prepared: Lookups,
  orgId: string,
  userId: string,
): Promise<Membership | null> => {
  const row = await first(prepared.member.all({ orgId, userId }));
  return row === null ? null : membershipOf(row);
};
