import { webUrlClaim } from '@covgate/sql-kit';
import { and, eq, isNull } from 'drizzle-orm';
import { repositorySettings } from '../schema.js';
import { affected, type QueryContext } from './context.js';

/** Claiming a repository's web URL for ingest: an insert, else a conditional update. */
export function repositoryQueries({ db }: QueryContext) {
  return {
    claimRepositoryWebUrl: async (orgId: string, repo: string, webUrl: string, at: Date) => {
      const { row, changes } = webUrlClaim(orgId, repo, webUrl, at);
      // A missing row is inserted; an existing one is updated only while no one set the URL.
      // Each statement is atomic, so of concurrent calls only the first write succeeds.
      // (One `ON DUPLICATE KEY UPDATE` cannot say which: mysql2 counts found rows.)
      const inserted = await db.insert(repositorySettings).ignore().values(row);
      if (affected(inserted) > 0) return true;
      const updated = await db
        .update(repositorySettings)
        .set(changes)
        .where(
          and(
            eq(repositorySettings.orgId, orgId),
            eq(repositorySettings.repo, repo),
            isNull(repositorySettings.webUrlSource),
          ),
        );
      return affected(updated) > 0;
    },
  };
}
