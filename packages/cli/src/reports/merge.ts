import { mergeBranches, withBranches } from './branches.js';
import { percentOf } from './percent.js';
import type { FileCoverage, ParsedReport } from './types.js';
import { fileFromUnits } from './units.js';

export { percentOf };

/** The line coverage of one or more merged reports. */
export interface CoverageSummary {
  /** Covered lines (Go: statements). */
  covered: number;
  /** Coverable lines (Go: statements). */
  coverable: number;
  /** `covered / coverable` in percent, truncated to two decimals (see {@link percentOf}). */
  percent: number;
  /** Distinct files. */
  files: number;
}

/** A file two reports name with different lines: likely two different files under one path. */
export interface PathClash {
  path: string;
  /** The indexes (in the list merged) of the first report that named it and of the other. */
  reports: [number, number];
  /** Each copy's last line (Go: the last block's end line), or its coverable count without lines. */
  last: [number, number];
  /** What `last` counts. */
  by: 'line' | 'coverable';
}

/** Merged files, each path once, and the clashes found on the way. */
export interface MergedFiles {
  files: FileCoverage[];
  clashes: PathClash[];
}

/**
 * Merges the files of several reports by path: a file named by several reports (or twice by
 * one) counts once, its units (lines, Go blocks) united, a unit covered in any report being
 * covered. When one of the copies has no line detail (a summary-only report) the copy with
 * more coverable lines is kept instead, since counts alone cannot be united.
 *
 * Two reports whose copies of a path end on different lines (or, without lines, count
 * different coverable lines) are listed in `clashes`: the same file measured twice has the
 * same lines, so these are probably two files whose paths were written alike.
 */
export function mergeFiles(reports: readonly ParsedReport[]): MergedFiles {
  const byPath = new Map<string, { file: FileCoverage; report: number; last?: number }>();
  const clashes: PathClash[] = [];
  const clashed = new Set<string>();
  reports.forEach((report, index) => {
    for (const file of report.files) {
      const seen = byPath.get(file.path);
      if (!seen) {
        byPath.set(file.path, { file, report: index });
        continue;
      }
      if (seen.report !== index && !clashed.has(file.path)) {
        const clash = clashOf(seen, file);
        if (clash) {
          clashed.add(file.path);
          clashes.push({ path: file.path, reports: [seen.report, index], ...clash });
        }
      }
      seen.file = mergeFile(seen.file, file);
    }
  });
  return { files: [...byPath.values()].map((entry) => entry.file), clashes };
}

function clashOf(
  seen: { file: FileCoverage; last?: number },
  file: FileCoverage,
): Pick<PathClash, 'last' | 'by'> | undefined {
  if (seen.file.units && file.units) {
    seen.last ??= lastLine(seen.file);
    const last = lastLine(file);
    return seen.last === last ? undefined : { last: [seen.last, last], by: 'line' };
  }
  return seen.file.coverable === file.coverable
    ? undefined
    : { last: [seen.file.coverable, file.coverable], by: 'coverable' };
}

/** The highest line a file's units reach: a line number, or a Go block's end line. */
function lastLine(file: FileCoverage): number {
  let last = 0;
  for (const unit of (file.units as () => Map<number | string, number>)().keys()) {
    const line = typeof unit === 'number' ? unit : Number(/,(\d+)\./.exec(unit)?.[1] ?? 0);
    if (line > last) last = line;
  }
  return last;
}

/** Merges reports into one summary; see {@link mergeFiles}. */
export function mergeReports(reports: readonly ParsedReport[]): CoverageSummary {
  // Each parser lists a path once, so one report needs no merging.
  if (reports.length === 1) return summarise((reports[0] as ParsedReport).files);
  return summarise(mergeFiles(reports).files);
}

/** The totals of a list of files, each counted as it is. */
export function summarise(files: readonly FileCoverage[]): CoverageSummary {
  let covered = 0;
  let coverable = 0;
  for (const file of files) {
    covered += file.covered;
    coverable += file.coverable;
  }
  return { covered, coverable, percent: percentOf(covered, coverable), files: files.length };
}

function mergeFile(a: FileCoverage, b: FileCoverage): FileCoverage {
  return withBranches(mergeLines(a, b), mergeBranches(a.branches, b.branches));
}

function mergeLines(a: FileCoverage, b: FileCoverage): FileCoverage {
  if (!a.units || !b.units) return b.coverable > a.coverable ? b : a;
  const units = new Map(a.units());
  for (const [unit, hits] of b.units()) {
    const previous = units.get(unit);
    if (previous === undefined || hits > previous) units.set(unit, hits);
  }
  const weights =
    a.weights || b.weights ? new Map([...(a.weights ?? []), ...(b.weights ?? [])]) : undefined;
  return fileFromUnits(a.path, units, weights);
}
