import { wholeSeconds } from '@covgate/core/storage-kit';
import { isNull } from 'drizzle-orm';
import { repositorySettings } from '../schema.js';
import type { QueryContext } from './context.js';

/** Claiming a repository's web URL for ingest: SQLite's one conditional upsert. */
export function repositoryQueries({ db }: QueryContext) {
  return {
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
  };
}
