import {
  type SessionRecord,
  type SignInLinkRecord,
  StoreConflictError,
  type User,
} from '@covgate/core';
import { sessionRow, signInLinkRow, wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, gt, isNull, type SQL } from 'drizzle-orm';
import { sessions, signInLinks, users } from '../schema.js';
import { first, type QueryContext } from './context.js';

/** Users, sessions and sign-in links: what signing in reads and writes. */
export function sessionQueries({ db, prepared }: QueryContext) {
  const findUser = (where: SQL | undefined) => first(db.select().from(users).where(where).limit(1));

  return {
    findOrCreateUser: async (candidate: User) => {
      await db
        .insert(users)
        .values({ ...candidate, createdAt: wholeSeconds(candidate.createdAt) })
        .onConflictDoNothing({ target: [users.provider, users.externalId] });
      const stored = await findUser(
        and(eq(users.provider, candidate.provider), eq(users.externalId, candidate.externalId)),
      );
      if (stored === null) throw new StoreConflictError('user id already exists');
      return stored;
    },

    findUserById: (id: string) => first(prepared.userById.all({ id })),

    insertSession: async (session: SessionRecord) => {
      await db.insert(sessions).values(sessionRow(session));
    },

    findSessionByTokenHash: (tokenHash: string) =>
      first(prepared.sessionByTokenHash.all({ tokenHash })),

    findSessionById: (id: string) => first(prepared.sessionById.all({ id })),

    deleteSession: async (id: string) => {
      const result = await db.delete(sessions).where(eq(sessions.id, id));
      return result.rowsAffected > 0;
    },

    setSessionOrganisation: async (id: string, orgId: string) => {
      const result = await db.update(sessions).set({ orgId }).where(eq(sessions.id, id));
      return result.rowsAffected > 0;
    },

    insertSignInLink: async (link: SignInLinkRecord) => {
      await db.insert(signInLinks).values(signInLinkRow(link));
    },

    useSignInLink: async (tokenHash: string, at: Date) => {
      // One statement: the condition and the write cannot be split by another caller.
      const [used] = await db
        .update(signInLinks)
        .set({ usedAt: wholeSeconds(at) })
        .where(
          and(
            eq(signInLinks.tokenHash, tokenHash),
            isNull(signInLinks.usedAt),
            gt(signInLinks.expiresAt, at),
          ),
        )
        .returning();
      return used ?? null;
    },
  };
}
