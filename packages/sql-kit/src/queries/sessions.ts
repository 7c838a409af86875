import type { SessionRecord, SignInLinkRecord } from '@covgate/core';
import { sessionRow, signInLinkRow } from '@covgate/core/storage-kit';
import { eq } from 'drizzle-orm';
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
