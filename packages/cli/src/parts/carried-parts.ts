import type { Execution } from '@covgate/client';
import { carriedText } from '@covgate/core/verdict';

/**
 * The parts of a commit's report carried forward from an earlier commit, as the statuses name
 * them (`integration carried from abc1234, 2 days old`); null when none was carried
 * (docs/guide/sharded-ci.md, "Carrying a missing part forward").
 */
export function carriedLine(record: Pick<Execution, 'parts'>): string | null {
  const carried = record.parts?.carried ?? [];
  if (carried.length === 0) return null;
  return carriedText(
    carried.map((part) => ({
      part: part.part,
      fromCommit: part.from_commit,
      ageSeconds: part.age_seconds,
    })),
  );
}
