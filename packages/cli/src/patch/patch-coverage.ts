import { branchLine } from '../reports/branches.js';
import { percentOf } from '../reports/merge.js';
import type { FileCoverage } from '../reports/types.js';
import type { ChangedLines } from './diff-lines.js';
import { lineHits } from './line-hits.js';
import { isTestFile } from './test-files.js';

/** The patch coverage of one file: its changed lines that are coverable, and those not covered. */
export interface PatchFile {
  path: string;
  covered: number;
  coverable: number;
  /** Changed coverable lines no test ran, ascending. */
  uncovered_lines: number[];
}

/** Coverage of the lines a change adds or modifies. */
export interface PatchCoverage {
  /** Changed lines that are coverable and covered. */
  covered: number;
  /** Changed lines that are coverable (the reports list them as lines that can run). */
  coverable: number;
  /** `covered / coverable` truncated to hundredths; null for a patch of no coverable line. */
  percent: number | null;
  /** Lines added or changed, coverable or not, in every file of the diff. */
  changed_lines: number;
  /** Files the diff adds or changes lines in. */
  changed_files: number;
  /** The files with coverable changed lines, sorted by path. */
  files: PatchFile[];
  /** Changed files no report names (documentation, configuration, untested sources...), tests aside. */
  not_in_report: string[];
  /** Changed test files no report names ({@link isTestFile}): not counted, not a missing source. */
  test_files: string[];
  /** Changed files a report names without line detail (a summary-only report). */
  no_line_data: string[];
  /**
   * The branches on the changed lines, as the reports count them (see {@link patchBranches});
   * null when no report of a changed file carries per-line branch data.
   */
  branches?: { covered: number; total: number } | null;
}

/**
 * Intersects the changed lines of a diff with the coverable lines of the merged reports'
 * files (repository-relative paths on both sides): a changed line counts when a report lists
 * it as coverable, and is covered when it was hit.
 */
export function patchCoverage(
  changed: ChangedLines,
  files: readonly FileCoverage[],
): PatchCoverage {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const patch: PatchCoverage = {
    covered: 0,
    coverable: 0,
    percent: null,
    changed_lines: 0,
    changed_files: changed.size,
    files: [],
    not_in_report: [],
    test_files: [],
    no_line_data: [],
  };
  for (const path of [...changed.keys()].sort(byCodeUnits)) {
    const ranges = changed.get(path) ?? [];
    for (const range of ranges) patch.changed_lines += range.count;
    const file = byPath.get(path);
    if (!file) {
      (isTestFile(path) ? patch.test_files : patch.not_in_report).push(path);
      continue;
    }
    const hits = lineHits(file);
    if (!hits) {
      patch.no_line_data.push(path);
      continue;
    }
    const entry: PatchFile = { path, covered: 0, coverable: 0, uncovered_lines: [] };
    // A diff's hunks are ascending and do not overlap: each line is seen once, in order.
    for (const range of ranges) {
      for (let line = range.start; line < range.start + range.count; line++) {
        const count = hits.get(line);
        if (count === undefined) continue;
        entry.coverable++;
        if (count > 0) entry.covered++;
        else entry.uncovered_lines.push(line);
      }
    }
    if (entry.coverable === 0) continue;
    patch.files.push(entry);
    patch.covered += entry.covered;
    patch.coverable += entry.coverable;
  }
  if (patch.coverable > 0) patch.percent = percentOf(patch.covered, patch.coverable);
  patch.branches = patchBranches(changed, byPath, files);
  return patch;
}

/**
 * The branches on the changed lines: each branch of a changed file's report whose line (the
 * line its tool puts it on: lcov's `BRDA` line, Istanbul's branch start, coverage.py's arc
 * source, a per-line format's line) was added or changed, covered when taken. Null when the
 * reports carry no branch data, or when a changed file's branches are counts without lines
 * (Clover, a summary): a figure that leaves branches out would read better than the truth.
 */
export function patchBranches(
  changed: ChangedLines,
  byPath: ReadonlyMap<string, FileCoverage>,
  files: readonly FileCoverage[],
): { covered: number; total: number } | null {
  if (!files.some((file) => file.branches)) return null;
  let covered = 0;
  let total = 0;
  for (const [path, ranges] of changed) {
    const branches = byPath.get(path)?.branches;
    if (!branches) continue;
    if (!branches.units) return null;
    const lines = new Set<number>();
    for (const range of ranges) {
      for (let line = range.start; line < range.start + range.count; line++) lines.add(line);
    }
    for (const [key, hits] of branches.units()) {
      const line = branchLine(key);
      if (line === null) return null;
      if (!lines.has(line)) continue;
      total++;
      if (hits > 0) covered++;
    }
  }
  return { covered, total };
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
