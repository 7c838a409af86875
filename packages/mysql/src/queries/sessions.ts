import type { User } from '@covgate/core';
import { wholeSeconds } from '@covgate/core/storage-kit';
import { findOrCreateUser } from '@covgate/sql-kit';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { signInLinks, users } from '../schema.js';
import { affected, type QueryContext } from './context.js';

/** Creating a user once and using a sign-in link once: MySQL's conditional writes. */
export function sessionQueries({ db, shared }: QueryContext) {
  return {
    findOrCreateUser: (candidate: User) =>
      findOrCreateUser(shared, candidate, (row) =>
        // A no-op update on a duplicate identity: no error, and unlike INSERT IGNORE no
        // other failure (an over-long value...) is silenced.
        db
          .insert(users)
          .values(row)
          .onDuplicateKeyUpdate({ set: { id: sql`${users.id}` } }),
      ),

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
