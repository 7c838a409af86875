import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type JournalEntry,
  type MigrationOptions,
  type MigrationResult,
  type MigrationStatus,
  migrationStatusOf,
} from '@covgate/core/storage-kit';

/** The migrations shipped in `folder`, from drizzle-kit's journal. */
export function journalOf(folder: string): JournalEntry[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'));
  return (journal.entries as JournalEntry[]).map(({ tag, when }) => ({ tag, when }));
}

/** The newest applied migration's `created_at`, null when none is recorded. */
export type LastAppliedAt = () => Promise<number | null>;

/**
 * The migrations a store ships (in `ownFolder`, or the folder `options` name), and a
 * database's standing and migration against them; the dialect gives how to read the newest
 * applied migration and how to apply a folder.
 */
export function migrationsIn(ownFolder: string, options: MigrationOptions) {
  const folder = options.migrationsFolder ?? ownFolder;
  const journal = () => journalOf(folder);
  return {
    journal,
    /** Where the database stands, without changing it. */
    status: async (lastAppliedAt: LastAppliedAt): Promise<MigrationStatus> =>
      migrationStatusOf(journal(), await lastAppliedAt()),
    /**
     * Runs `apply` between two readings of the newest applied migration and reports the
     * schema's version before and after and the migrations applied.
     */
    migrate: async (
      lastAppliedAt: LastAppliedAt,
      apply: (folder: string) => Promise<void>,
    ): Promise<MigrationResult> => {
      const shipped = journal();
      const before = migrationStatusOf(shipped, await lastAppliedAt());
      await apply(folder);
      const after = migrationStatusOf(shipped, await lastAppliedAt());
      return {
        from: before.current,
        to: after.current ?? after.latest,
        applied: before.pending.filter((tag) => !after.pending.includes(tag)),
      };
    },
  };
}
