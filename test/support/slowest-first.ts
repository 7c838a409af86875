import { readFileSync } from 'node:fs';

/**
 * Which test files start first. With two workers a 200 s file that starts late sets the run's
 * wall time, so the slowest files start first (longest processing time first) and the many
 * short ones fill in around them. A clean clone (CI) has no vitest results cache to know the
 * slow ones from, so a list of them is checked in (`test/slow-files.json`, refreshed by
 * `pnpm test:slow-files` after a full run: scripts/slow-files.mjs).
 */

/**
 * `files` with those of a known duration first, longest first; the others after them in the
 * order given (vitest's own: larger files first). The sort is stable: ties keep their order.
 */
export function slowestFirst<T>(
  files: readonly T[],
  durationOf: (file: T) => number | undefined,
): T[] {
  return files
    .map((file) => ({ file, duration: durationOf(file) }))
    .sort((a, b) => (b.duration ?? -1) - (a.duration ?? -1))
    .map(({ file }) => file);
}

/**
 * The checked-in list (`{ "<path from the repository root>": seconds }`) as milliseconds by
 * path. A list that is not such an object is an error that names the file.
 */
export function readSlowFiles(path: string): Map<string, number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`);
  }
  const isList =
    parsed !== null &&
    typeof parsed === 'object' &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((seconds) => Number.isFinite(seconds) && seconds >= 0);
  if (!isList) throw new Error(`${path}: expected an object of test file paths to seconds`);
  const entries = Object.entries(parsed as Record<string, number>);
  return new Map(entries.map(([file, seconds]) => [file, seconds * 1000]));
}
