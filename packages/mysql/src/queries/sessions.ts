import { wholeSeconds } from '@covgate/core/storage-kit';
import { isUsableSignInLink } from '@covgate/sql-kit';
import { eq } from 'drizzle-orm';
import { signInLinks } from '../schema.js';
import { affected, type QueryContext } from './context.js';

/** Using a sign-in link once: MySQL's conditional update, then the claimer's read. */
export function sessionQueries({ db, shared }: QueryContext) {
  return {
    useSignInLink: async (tokenHash: string, at: Date) => {
      // The conditional update is the claim: one caller matches the unused row, the others
      // match nothing. The row is read back only by the caller that claimed it.
      const result = await db
        .update(signInLinks)
        .set({ usedAt: wholeSeconds(at) })
        .where(isUsableSignInLink(shared.tables, tokenHash, at));
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
