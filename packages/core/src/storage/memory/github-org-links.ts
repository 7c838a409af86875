import { wholeSeconds } from '../../time/timestamp.js';
import type { GithubOrgLinkStore } from '../store.js';
import { byCodeUnit, copy, copyOrNull } from './copy.js';
import type { MemoryTables } from './tables.js';

/** The memory store's links from organisations to GitHub organisations. */
export function memoryGithubOrgLinks(t: MemoryTables): GithubOrgLinkStore {
  return {
    async linkGithubOrg(link) {
      for (const other of t.githubOrgLinks.values()) {
        if (other.githubOrg === link.githubOrg && other.orgId !== link.orgId) return 'taken';
      }
      t.githubOrgLinks.set(link.orgId, { ...copy(link), linkedAt: wholeSeconds(link.linkedAt) });
      return 'done';
    },

    async findGithubOrgLink(orgId) {
      return copyOrNull(t.githubOrgLinks.get(orgId));
    },

    async listGithubOrgLinks() {
      return [...t.githubOrgLinks.values()]
        .map((link) => copy(link))
        .sort((a, b) => byCodeUnit(a.githubOrg, b.githubOrg));
    },

    async unlinkGithubOrg(orgId) {
      return t.githubOrgLinks.delete(orgId);
    },
  };
}
