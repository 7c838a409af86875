import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type JournalEntry,
  type MigrationResult,
  migrationStatusOf,
} from '@covgate/core/storage-kit';

/** The migrations shipped in `folder`, from drizzle-kit's journal. */
export function journalOf(folder: string): JournalEntry[] {
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'));
  return (journal.entries as JournalEntry[]).map(({ tag, when }) => ({ tag, when }));
}

/**
 * Runs `apply` between two readings of the newest applied migration and reports the schema's
 * version before and after and the migrations applied.
 */
export async function applyAndReport(
  shipped: JournalEntry[],
  lastAppliedAt: () => Promise<number | null>,
  apply: () => Promise<void>,
): Promise<MigrationResult> {
  const before = migrationStatusOf(shipped, await lastAppliedAt());
  await apply();
  const after = migrationStatusOf(shipped, await lastAppliedAt());
  return {
    from: before.current,
    to: after.current ?? after.latest,
    applied: before.pending.filter((tag) => !after.pending.includes(tag)),
  };
}
