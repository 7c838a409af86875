import {
  type SessionRecord,
  type SignInLinkRecord,
  StoreConflictError,
  type User,
} from '@covgate/core';
import { sessionRow, signInLinkRow, wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';
import type { Tables } from '../tables.js';

/**
 * Users, sessions and sign-in links: what signing in reads and writes. Using a link once is
 * each dialect's own conditional write.
 */
export function sessionQueries({ db, tables, lookups, run, affected, insertUserOnce }: SqlContext) {
  const { sessions, signInLinks, users } = tables;
  return {
    // The user is written unless its identity is known, then read back: a user id taken by
    // another identity is a conflict.
    findOrCreateUser: async (candidate: User) => {
      await insertUserOnce({ ...candidate, createdAt: wholeSeconds(candidate.createdAt) });
      const stored = await first(
        db
          .select()
          .from(users)
          .where(
            and(eq(users.provider, candidate.provider), eq(users.externalId, candidate.externalId)),
          )
          .limit(1),
      );
      if (stored === null) throw new StoreConflictError('user id already exists');
      return stored;
    },

    findUserById: (id: string) => first(run(lookups.userById, { id })),

    insertSession: async (session: SessionRecord) => {
      await db.insert(sessions).values(sessionRow(session));
    },

    findSessionByTokenHash: (tokenHash: string) =>
      first(run(lookups.sessionByTokenHash, { tokenHash })),

    findSessionById: (id: string) => first(run(lookups.sessionById, { id })),

    deleteSession: async (id: string) => {
      const result = await db.delete(sessions).where(eq(sessions.id, id));
      return affected(result) > 0;
    },

    setSessionOrganisation: async (id: string, orgId: string) => {
      const result = await db.update(sessions).set({ orgId }).where(eq(sessions.id, id));
      return affected(result) > 0;
    },

    insertSignInLink: async (link: SignInLinkRecord) => {
      await db.insert(signInLinks).values(signInLinkRow(link));
    },
  };
}

/** The sign-in link with this token hash while it is unused and unexpired at `at`. */
export const isUsableSignInLink = ({ signInLinks }: Tables, tokenHash: string, at: Date) =>
  and(
    eq(signInLinks.tokenHash, tokenHash),
    isNull(signInLinks.usedAt),
    gt(signInLinks.expiresAt, at),
  );
