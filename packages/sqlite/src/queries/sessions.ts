import { StoreConflictError, type User } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { signInLinks, users } from '../schema.js';
import type { QueryContext } from './context.js';

/** Creating a user once and using a sign-in link once: SQLite's conditional writes. */
export function sessionQueries({ db }: QueryContext) {
  return {
    findOrCreateUser: async (candidate: User) => {
      await db
        .insert(users)
        .values({ ...candidate, createdAt: wholeSeconds(candidate.createdAt) })
        .onConflictDoNothing({ target: [users.provider, users.externalId] });
      const [stored] = await db
        .select()
        .from(users)
        .where(
          and(eq(users.provider, candidate.provider), eq(users.externalId, candidate.externalId)),
        )
        .limit(1);
      if (stored === undefined) throw new StoreConflictError('user id already exists');
      return stored;
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
