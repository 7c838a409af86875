// The checked-in list of slow test files (test/slow-files.json) that the vitest sequencer
// starts first (test/support/slowest-first-sequencer.ts), made from vitest's results cache.
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** Files that took at least this long (ms) are listed as slow. */
export const SLOW_FILE_MS = 5_000;

/**
 * Where vitest keeps the durations of the last run of each file under `repo`: Vite's cache
 * folder, then `vitest/` and the SHA-1 of the project's name (the default project's is empty).
 */
export function resultsCachePath(repo) {
  const project = createHash('sha1').update('').digest('hex');
  return join(repo, 'node_modules', '.vite', 'vitest', project, 'results.json');
}

/**
 * The list to check in from the cache's `results` (`[<project>:<path>, { duration, failed }]`):
 * the default project's files that passed in at least `SLOW_FILE_MS`, longest first, in whole
 * seconds.
 */
export function slowFilesFromResults(results) {
  const slow = results
    .filter(([key, result]) => key.startsWith(':') && !result.failed)
    .filter(([, result]) => result.duration >= SLOW_FILE_MS)
    .map(([key, result]) => [key.slice(1), Math.round(result.duration / 1000)])
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return Object.fromEntries(slow);
}
