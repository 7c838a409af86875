import {
  type SessionRecord,
  type SignInLinkRecord,
  StoreConflictError,
  type User,
} from '@covgate/core';
import { sessionRow, signInLinkRow, wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/**
 * Users, sessions and sign-in links: the reads and plain writes of signing in. Creating a user
 * once and using a link once are each dialect's own conditional writes.
 */
export function sessionQueries({ db, tables, lookups, run, affected }: SqlContext) {
  const { sessions, signInLinks } = tables;
  return {
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

/**
 * `Store.findOrCreateUser`: `insertUnlessKnown` writes the user unless one with its provider
 * identity exists (the dialect's conditional insert); the stored user is read back. A user
 * id taken by another identity is a conflict.
 */
export async function findOrCreateUser(
  { db, tables: { users } }: SqlContext,
  candidate: User,
  insertUnlessKnown: (row: User) => Promise<unknown>,
): Promise<User> {
  await insertUnlessKnown({ ...candidate, createdAt: wholeSeconds(candidate.createdAt) });
  const [stored] = await db
    .select()
    .from(users)
    .where(and(eq(users.provider, candidate.provider), eq(users.externalId, candidate.externalId)))
    .limit(1);
  if (stored === undefined) throw new StoreConflictError('user id already exists');
  return stored;
}
