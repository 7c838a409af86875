import {
  type SessionRecord,
  type SignInLinkRecord,
  StoreConflictError,
  type User,
} from '@covgate/core';
import { sessionRow, signInLinkRow, wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import { sessions, signInLinks, users } from '../schema.js';
import { affected, first, type QueryContext } from './context.js';

/** Users, sessions and sign-in links: what signing in reads and writes. */
export function sessionQueries({ db, prepared }: QueryContext) {
  const findUser = (where: SQL | undefined) => first(db.select().from(users).where(where).limit(1));

  return {
    findOrCreateUser: async (candidate: User) => {
      // A no-op update on a duplicate identity: no error, and unlike INSERT IGNORE no
      // other failure (an over-long value...) is silenced.
      await db
        .insert(users)
        .values({ ...candidate, createdAt: wholeSeconds(candidate.createdAt) })
        .onDuplicateKeyUpdate({ set: { id: sql`${users.id}` } });
      const stored = await findUser(
        and(eq(users.provider, candidate.provider), eq(users.externalId, candidate.externalId)),
      );
      if (stored === null) throw new StoreConflictError('user id already exists');
      return stored;
    },

    findUserById: (id: string) => first(prepared.userById.execute({ id })),

    insertSession: async (session: SessionRecord) => {
      await db.insert(sessions).values(sessionRow(session));
    },

    findSessionByTokenHash: (tokenHash: string) =>
      first(prepared.sessionByTokenHash.execute({ tokenHash })),

    findSessionById: (id: string) => first(prepared.sessionById.execute({ id })),

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

    useSignInLink: async (tokenHash: string, at: Date) => {
      // The conditional update is the claim: one caller matches the unused row, the others
      // match nothing. The row is read back only by the caller that claimed it.
      const result = await db
        .update(signInLinks)
        .set({ usedAt: wholeSeconds(at) })
        .where(
          and(
            eq(signInLinks.tokenHash, tokenHash),
            isNull(signInLinks.usedAt),
            gt(signInLinks.expiresAt, at),
          ),
        );
      if (affected(result) === 0) return null;
      const [link] = await db
        .select()
        .from(signInLinks)
        .where(eq(signInLinks.tokenHash, tokenHash))
        .limit(1);
      return link ?? null;
    },
  };
}
