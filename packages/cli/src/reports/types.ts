/** The formats `covgate` reads, as `--format` names them. */
export const REPORT_FORMATS = [
  'lcov',
  'cobertura',
  'clover',
  'jacoco',
  'istanbul',
  'go',
  'coverage-py',
  'sonarqube',
] as const;

/** One coverage report format. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * The branch coverage of one source file, counted as its tool counts branches (see each
 * parser and docs/cli.md).
 */
export interface BranchCoverage {
  /** Branches listed. */
  coverable: number;
  /** Branches taken at least once. */
  covered: number;
  /**
   * Hits per branch, keyed so that two reports of one file name a branch alike (lcov
   * `line:block:branch`, Istanbul `id:index`, coverage.py arcs `from>to`; per-line formats
   * `line#i`). Absent where only counts are known (Clover's metrics, summaries).
   */
  units?: () => Map<string, number>;
}

/**
 * The coverage of one source file.
 *
 * `units` gives the map of each coverable unit (a line number, or for Go a statement block) to
 * its hit count, so the same file seen in several reports is merged unit by unit; it is a
 * function because only such files need it. Summary-only formats (`coverage-summary.json`,
 * lcov records without `DA` lines) have no `units`, only the counts.
 */
export interface FileCoverage {
  /** The file's path as the report names it. */
  path: string;
  /** Coverable units, weighed by `weights` when present (Go: statements per block). */
  coverable: number;
  /** Covered units (hit at least once). */
  covered: number;
  /** Hit count per unit (line number, or a Go block's position). */
  units?: () => Map<number | string, number>;
  /** Weight per unit when it is not 1 (Go: the block's statement count). */
  weights?: Map<number | string, number>;
  /**
   * Hit count per source line, for a file whose lines are known but are not its `units`:
   * coverage.py JSON, whose `executed_lines` may also list a docstring, which coverage.py does
   * not count as a statement (its counts come from `summary` instead).
   */
  lines?: () => Map<number, number>;
  /** Branch coverage, when the report carries branch data for the file. */
  branches?: BranchCoverage;
}

/** A parsed report: its format and the coverage of each file it names, each path once. */
export interface ParsedReport {
  format: ReportFormat;
  files: FileCoverage[];
  /**
   * Cobertura: the `<source>` folders (as written, non-empty) its relative file names are
   * relative to, in the report's order; each file is under one of them.
   */
  sources?: string[];
}

/** A report that cannot be read: the message names the file and what is wrong. */
export class ReportError extends Error {
  override readonly name = 'ReportError';
  /**
   * @param file - the report's path as the user gave it
   * @param problem - what is wrong, e.g. `not valid JSON`
   */
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/** Thrown by parsers for malformed content; the caller adds the file name. */
export class MalformedReport extends Error {
  override readonly name = 'MalformedReport';
}
