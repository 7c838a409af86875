import type { RepositoryLink, RepositorySettings } from '@covgate/core';
import {
  repositoryLinkUpsert,
  repositorySettingsUpsert,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { and, eq } from 'drizzle-orm';
import type { SqlContext } from '../dialect.js';
import { first } from '../rows.js';

/**
 * A repository's settings and its link to a forge repository. Claiming the web URL is each
 * dialect's own conditional write.
 */
export function repositoryQueries({ db, tables, affected, upsert }: SqlContext) {
  const { repositorySettings, repositoryLinks } = tables;
  return {
    findRepositorySettings: (orgId: string, repo: string): Promise<RepositorySettings | null> =>
      first(
        db
          .select()
          .from(repositorySettings)
          .where(and(eq(repositorySettings.orgId, orgId), eq(repositorySettings.repo, repo)))
          .limit(1),
      ),

    saveRepositorySettings: (settings: RepositorySettings) => {
      const { row, changes } = repositorySettingsUpsert(settings);
      return upsert(repositorySettings, ['orgId', 'repo'], row, changes);
    },

    putRepositoryLink: (link: RepositoryLink) => {
      const { row, changes } = repositoryLinkUpsert(link);
      return upsert(repositoryLinks, ['orgId', 'repo'], row, changes);
    },

    findRepositoryLink: (orgId: string, repo: string) =>
      first(
        db
          .select()
          .from(repositoryLinks)
          .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)))
          .limit(1),
      ),

    deleteRepositoryLink: async (orgId: string, repo: string) => {
      const result = await db
        .delete(repositoryLinks)
        .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)));
      return affected(result) > 0;
    },
  };
}

/**
 * The values of claiming a repository's web URL for ingest: the row a repository without
 * settings gets, and the changes to one whose URL nobody set (its patch target untouched).
 */
export function webUrlClaim(orgId: string, repo: string, webUrl: string, at: Date) {
  const changes = { webUrl, webUrlSource: 'ingest' as const, updatedAt: wholeSeconds(at) };
  const row = {
    orgId,
    repo,
    patchTarget: null,
    expectedParts: null,
    partsDeadlineMinutes: null,
    carryforwardParts: null,
    ciTrust: null,
    ...changes,
  };
  return { row, changes };
}
