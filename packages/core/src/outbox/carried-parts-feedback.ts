import { ageText, carriedText } from '../executions/carryforward.js';
import type { ExecutionRecord } from '../storage/store.js';

// How the code host is told that a commit's report holds parts carried forward from an earlier
// commit (docs/decisions.md, "Carryforward of a missing part"): never silently.

/**
 * A status description followed by the parts carried into the report
 * (`81.25% (+11.25) pass; integration carried from abc1234, 2 days old`), within `max`
 * characters: when the names do not fit, how many parts were carried and the oldest age
 * (`; 3 parts carried, up to 2 days old`), since the carry must show even when cut short.
 */
export function describeWithCarried(
  description: string,
  record: ExecutionRecord,
  max: number,
): string {
  const carried = record.parts?.carried ?? [];
  if (carried.length === 0) return clipTo(description, max);
  const full = `${description}; ${carriedText(carried)}`;
  if (full.length <= max) return full;
  const oldest = Math.max(...carried.map((part) => part.ageSeconds));
  const count = `${carried.length} ${carried.length === 1 ? 'part' : 'parts'}`;
  const short = `; ${count} carried, up to ${ageText(oldest)}`;
  return `${clipTo(description, max - short.length)}${short}`;
}

/**
 * The comment's lines naming the carried parts, one per part with its commit, run and age,
 * followed by a blank line; none when nothing was carried.
 */
export function carriedPartsLines(record: ExecutionRecord): string[] {
  const carried = record.parts?.carried ?? [];
  if (carried.length === 0) return [];
  return [
    '**Carried forward** (not run on this commit; counted in the project figure, never on a changed line):',
    '',
    ...carried.map(
      (part) =>
        `- \`${part.part}\` from \`${part.fromCommit.slice(0, 7)}\` (run \`${part.fromRun}\`), ${ageText(part.ageSeconds)}`,
    ),
    '',
  ];
}

function clipTo(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
