import { encodeLineData, encodeRanges } from '@covgate/core/line-data';
import type { FileCoverage } from '../reports/types.js';
import type { ChangedLines } from './diff-lines.js';
import type { FileEntry } from './file-entries.js';
import { lineHits } from './line-hits.js';

/**
 * The run's files as `files` entries with their line data (docs/decisions.md, "Line data on
 * ingest"), sorted by path. A file whose report lists its lines sends them, and its counts
 * are then the counts of those lines, whatever its tool counts (Go: statements; coverage.py:
 * its summary), since the service checks that they agree; with `changed`, it also sends the
 * lines the patch adds or changes in it (`patch_lines`). A file known by counts only (a
 * summary report) is sent as its counts. A file whose report carries branch data sends its
 * branch counts (`branches`).
 */
export function lineEntries(
  files: readonly FileCoverage[],
  changed: ChangedLines | null,
): FileEntry[] {
  return files
    .map((file): FileEntry => {
      const hits = lineHits(file);
      const branches = file.branches
        ? { branches: { covered: file.branches.covered, total: file.branches.coverable } }
        : {};
      if (hits === undefined)
        return { path: file.path, covered: file.covered, coverable: file.coverable, ...branches };
      const coverable = [...hits.keys()].sort((a, b) => a - b);
      const covered = coverable.filter((line) => (hits.get(line) as number) > 0);
      const entry: FileEntry = {
        path: file.path,
        covered: covered.length,
        coverable: coverable.length,
        lines: encodeLineData({ coverable, covered }),
        ...branches,
      };
      const ranges = changed?.get(file.path);
      return ranges === undefined ? entry : { ...entry, patch_lines: changedRanges(ranges) };
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A diff's ranges of one file as `gap, length` ranges, adjacent hunks joined. */
function changedRanges(ranges: readonly { start: number; count: number }[]): number[] {
  const lines: number[] = [];
  for (const range of ranges) {
    for (let line = range.start; line < range.start + range.count; line++) lines.push(line);
  }
  return encodeRanges(lines);
}
