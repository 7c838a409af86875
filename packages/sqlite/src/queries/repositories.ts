import type { RepositoryLink, RepositorySettings } from '@covgate/core';
import {
  repositoryLinkUpsert,
  repositorySettingsUpsert,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { and, eq, isNull } from 'drizzle-orm';
import { repositoryLinks, repositorySettings } from '../schema.js';
import { first, type QueryContext } from './context.js';

/** A repository's settings and its link to a forge repository. */
export function repositoryQueries({ db }: QueryContext) {
  return {
    findRepositorySettings: async (
      orgId: string,
      repo: string,
    ): Promise<RepositorySettings | null> =>
      first(
        db
          .select()
          .from(repositorySettings)
          .where(and(eq(repositorySettings.orgId, orgId), eq(repositorySettings.repo, repo)))
          .limit(1),
      ),

    saveRepositorySettings: async (settings: RepositorySettings) => {
      const { row, changes } = repositorySettingsUpsert(settings);
      await db
        .insert(repositorySettings)
        .values(row)
        .onConflictDoUpdate({
          target: [repositorySettings.orgId, repositorySettings.repo],
          set: changes,
        });
    },

    claimRepositoryWebUrl: async (orgId: string, repo: string, webUrl: string, at: Date) => {
      const updatedAt = wholeSeconds(at);
      // One statement: the row is created, or updated only while no one set the URL.
      const result = await db
        .insert(repositorySettings)
        .values({ orgId, repo, patchTarget: null, webUrl, webUrlSource: 'ingest', updatedAt })
        .onConflictDoUpdate({
          target: [repositorySettings.orgId, repositorySettings.repo],
          set: { webUrl, webUrlSource: 'ingest', updatedAt },
          setWhere: isNull(repositorySettings.webUrlSource),
        });
      return result.rowsAffected > 0;
    },

    putRepositoryLink: async (link: RepositoryLink) => {
      const { row, changes } = repositoryLinkUpsert(link);
      await db
        .insert(repositoryLinks)
        .values(row)
        .onConflictDoUpdate({
          target: [repositoryLinks.orgId, repositoryLinks.repo],
          set: changes,
        });
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
      return result.rowsAffected > 0;
    },
  };
}
