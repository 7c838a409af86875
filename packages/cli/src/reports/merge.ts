import type { FileCoverage, ParsedReport } from './types.js';
import { fileFromUnits } from './units.js';

/** The line coverage of one or more merged reports. */
export interface CoverageSummary {
  /** Covered lines (Go: statements). */
  covered: number;
  /** Coverable lines (Go: statements). */
  coverable: number;
  /** `covered / coverable` in percent, two decimals (see {@link percentOf}). */
  percent: number;
  /** Distinct files. */
  files: number;
}

/**
 * A percentage with two decimals, rounded half away from zero as the API rounds coverage.
 * Exact for integer counts: the halfway case of `covered * 10000 / coverable` is a dyadic
 * fraction, so no floating-point error moves it.
 */
export function percentOf(covered: number, coverable: number): number {
  if (coverable <= 0) return 0;
  return Math.round((covered * 10000) / coverable) / 100;
}

/**
 * Merges reports into one summary. A file named by several reports (or twice by one) counts
 * once: its units (lines, Go blocks) are united, a unit covered in any report is covered. When
 * one of the copies has no line detail (a summary-only report) the copy with more coverable
 * lines is kept instead, since counts alone cannot be united.
 */
export function mergeReports(reports: readonly ParsedReport[]): CoverageSummary {
  // Each parser lists a path once, so one report needs no merging.
  if (reports.length === 1) return summarise((reports[0] as ParsedReport).files);
  const byPath = new Map<string, FileCoverage>();
  for (const report of reports) {
    for (const file of report.files) {
      const seen = byPath.get(file.path);
      byPath.set(file.path, seen ? mergeFile(seen, file) : file);
    }
  }
  return summarise([...byPath.values()]);
}

function summarise(files: readonly FileCoverage[]): CoverageSummary {
  let covered = 0;
  let coverable = 0;
  for (const file of files) {
    covered += file.covered;
    coverable += file.coverable;
  }
  return { covered, coverable, percent: percentOf(covered, coverable), files: files.length };
}

function mergeFile(a: FileCoverage, b: FileCoverage): FileCoverage {
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
