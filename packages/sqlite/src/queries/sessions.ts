import type { User } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { findOrCreateUser } from '@covgate/sql-kit';
import { and, eq, gt, isNull } from 'drizzle-orm';
import { signInLinks, users } from '../schema.js';
import type { QueryContext } from './context.js';

/** Creating a user once and using a sign-in link once: SQLite's conditional writes. */
export function sessionQueries({ db, shared }: QueryContext) {
  return {
    findOrCreateUser: (candidate: User) =>
      findOrCreateUser(shared, candidate, (row) =>
        db
          .insert(users)
          .values(row)
          .onConflictDoNothing({ target: [users.provider, users.externalId] }),
      ),

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
