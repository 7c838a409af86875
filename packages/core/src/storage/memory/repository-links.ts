import { wholeSeconds } from '../../time/timestamp.js';
import type { RepositoryLinkStore } from '../store.js';
import { copy, copyOrNull } from './copy.js';
import { type MemoryTables, pairKey } from './tables.js';

/** The memory store's links from repositories to their code host. */
export function memoryRepositoryLinks(t: MemoryTables): RepositoryLinkStore {
  return {
    async putRepositoryLink(link) {
      t.repositoryLinks.set(
        pairKey(link.orgId, link.repo),
        copy({
          ...link,
          createdAt: wholeSeconds(link.createdAt),
          updatedAt: wholeSeconds(link.updatedAt),
        }),
      );
    },

    async findRepositoryLink(orgId, repo) {
      return copyOrNull(t.repositoryLinks.get(pairKey(orgId, repo)));
    },

    async deleteRepositoryLink(orgId, repo) {
      return t.repositoryLinks.delete(pairKey(orgId, repo));
    },
  };
}
