// Writes test/slow-files.json from the durations of the last full `vitest run` in this clone
// (vitest's results cache), so that a clean clone starts the slowest test files first too.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resultsCachePath, SLOW_FILE_MS, slowFilesFromResults } from './slow-files.mjs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const cache = resultsCachePath(repo);
if (!existsSync(cache)) {
  console.error(`covgate: no vitest results in ${cache}: run the whole suite first (vitest run)`);
  process.exit(1);
}
const { results } = JSON.parse(readFileSync(cache, 'utf8'));
const slow = slowFilesFromResults(results);
if (Object.keys(slow).length === 0) {
  console.error(
    `covgate: none of the ${results.length} files in ${cache} took ${SLOW_FILE_MS / 1000} s: run the whole suite first (vitest run)`,
  );
  process.exit(1);
}
const target = fileURLToPath(new URL('../test/slow-files.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(slow, null, 2)}\n`);
console.error(
  `covgate: ${Object.keys(slow).length} files of ${results.length} took ${SLOW_FILE_MS / 1000} s or more: test/slow-files.json`,
);
