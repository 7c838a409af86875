import type { FileCoverage, ParsedReport } from './types.js';
import { fileFromUnits } from './units.js';

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

/**
 * A percentage truncated to hundredths, never rounded up (99.936 is 99.93), as istanbul's
 * summaries print it: a gate must not pass on rounding. Computed on integers, so no
 * floating-point error can move a figure across a hundredth.
 */
export function percentOf(covered: number, coverable: number): number {
  if (coverable <= 0) return 0;
  const scaled = covered * 10000;
  let hundredths = Math.floor(scaled / coverable);
  // The division is rounded to the nearest double: step back if that crossed a whole number.
  if (hundredths * coverable > scaled) hundredths--;
  else if ((hundredths + 1) * coverable <= scaled) hundredths++;
  return hundredths / 100;
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
