import { wholeSeconds } from '@covgate/core/storage-kit';
import { isUsableSignInLink } from '@covgate/sql-kit';
import { signInLinks } from '../schema.js';
import type { QueryContext } from './context.js';

/** Using a sign-in link once: SQLite's one conditional update. */
export function sessionQueries({ db, shared }: QueryContext) {
  return {
    useSignInLink: async (tokenHash: string, at: Date) => {
      // One statement: the condition and the write cannot be split by another caller.
      const [used] = await db
        .update(signInLinks)
        .set({ usedAt: wholeSeconds(at) })
        .where(isUsableSignInLink(shared.tables, tokenHash, at))
        .returning();
      return used ?? null;
    },
  };
}
