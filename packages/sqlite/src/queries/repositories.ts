import { webUrlClaim } from '@covgate/sql-kit';
import { isNull } from 'drizzle-orm';
import { repositorySettings } from '../schema.js';
import type { QueryContext } from './context.js';

/** Claiming a repository's web URL for ingest: SQLite's one conditional upsert. */
export function repositoryQueries({ db }: QueryContext) {
  return {
    claimRepositoryWebUrl: async (orgId: string, repo: string, webUrl: string, at: Date) => {
      const { row, changes } = webUrlClaim(orgId, repo, webUrl, at);
      // One statement: the row is created, or updated only while no one set the URL.
      const result = await db
        .insert(repositorySettings)
        .values(row)
        .onConflictDoUpdate({
          target: [repositorySettings.orgId, repositorySettings.repo],
          set: changes,
          setWhere: isNull(repositorySettings.webUrlSource),
        });
      return result.rowsAffected > 0;
    },
  };
}
