import type { RepositoryLink, RepositorySettings } from '@covgate/core';
import {
  repositoryLinkUpsert,
  repositorySettingsUpsert,
  wholeSeconds,
} from '@covgate/core/storage-kit';
import { and, eq, isNull } from 'drizzle-orm';
import { repositoryLinks, repositorySettings } from '../schema.js';
import { affected, type QueryContext } from './context.js';

/** A repository's settings and its link to a forge repository. */
export function repositoryQueries({ db }: QueryContext) {
  return {
    findRepositorySettings: async (
      orgId: string,
      repo: string,
    ): Promise<RepositorySettings | null> => {
      const [row] = await db
        .select()
        .from(repositorySettings)
        .where(and(eq(repositorySettings.orgId, orgId), eq(repositorySettings.repo, repo)))
        .limit(1);
      return row ?? null;
    },

    saveRepositorySettings: async (settings: RepositorySettings) => {
      const { row, changes } = repositorySettingsUpsert(settings);
      await db.insert(repositorySettings).values(row).onDuplicateKeyUpdate({ set: changes });
    },

    claimRepositoryWebUrl: async (orgId: string, repo: string, webUrl: string, at: Date) => {
      const updatedAt = wholeSeconds(at);
      // A missing row is inserted; an existing one is updated only while no one set the URL.
      // Each statement is atomic, so of concurrent calls only the first write succeeds.
      // (One `ON DUPLICATE KEY UPDATE` cannot say which: mysql2 counts found rows.)
      const inserted = await db
        .insert(repositorySettings)
        .ignore()
        .values({ orgId, repo, patchTarget: null, webUrl, webUrlSource: 'ingest', updatedAt });
      if (affected(inserted) > 0) return true;
      const updated = await db
        .update(repositorySettings)
        .set({ webUrl, webUrlSource: 'ingest', updatedAt })
        .where(
          and(
            eq(repositorySettings.orgId, orgId),
            eq(repositorySettings.repo, repo),
            isNull(repositorySettings.webUrlSource),
          ),
        );
      return affected(updated) > 0;
    },

    putRepositoryLink: async (link: RepositoryLink) => {
      const { row, changes } = repositoryLinkUpsert(link);
      await db.insert(repositoryLinks).values(row).onDuplicateKeyUpdate({ set: changes });
    },

    findRepositoryLink: async (orgId: string, repo: string) => {
      const [row] = await db
        .select()
        .from(repositoryLinks)
        .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)))
        .limit(1);
      return row ?? null;
    },

    deleteRepositoryLink: async (orgId: string, repo: string) => {
      const result = await db
        .delete(repositoryLinks)
        .where(and(eq(repositoryLinks.orgId, orgId), eq(repositoryLinks.repo, repo)));
      return affected(result) > 0;
    },
  };
}
