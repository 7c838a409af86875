import { wholeSeconds } from '../../time/timestamp.js';
import type { SignInLinkStore } from '../store.js';
import { copy } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's one-use sign-in links. */
export function memorySignInLinks(t: MemoryTables): SignInLinkStore {
  return {
    async insertSignInLink(link) {
      t.signInLinks.insert(copy(link));
    },

    async useSignInLink(tokenHash, at) {
      const link = t.signInLinks.byTokenHash(tokenHash);
      if (!link || link.usedAt !== null || link.expiresAt.getTime() <= at.getTime()) return null;
      link.usedAt = wholeSeconds(at);
      return copy(link);
    },
  };
}
