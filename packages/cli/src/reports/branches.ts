import { percentOf } from './percent.js';
import type { BranchCoverage, FileCoverage } from './types.js';
import { recordHits } from './units.js';

/** The branch coverage of one or more merged reports. */
export interface BranchSummary {
  /** Branches taken at least once. */
  covered: number;
  /** Branches the reports list. */
  coverable: number;
  /** `covered / coverable` in percent, truncated to two decimals; null for no branch. */
  percent: number | null;
  /** Files with branch data. */
  files: number;
}

/** Builds a file's branch coverage from a map of branch -> hits: a branch is covered when hit. */
export function branchesFromUnits(units: Map<string, number>): BranchCoverage {
  let covered = 0;
  for (const hits of units.values()) if (hits > 0) covered++;
  return { coverable: units.size, covered, units: () => units };
}

/**
 * The source line a branch is on, from its key: lcov's `line:block:branch`, Istanbul's
 * `line:bID:index`, a per-line format's `line#i`, coverage.py's arc `from>to` (the line the
 * branch leaves); null for a key that names no line (an Istanbul file without a branch map).
 */
export function branchLine(key: string): number | null {
  const match = /^(\d+)[:#>]/.exec(key);
  return match ? Number(match[1]) : null;
}

/**
 * Records the branches of a line for a format that counts them per line without naming them
 * (Cobertura's `condition-coverage`, JaCoCo's `mb`/`cb`, SonarQube's `coveredBranches`): the
 * line's first `covered` branches as taken, the rest as not. Two reports of one line unite to
 * the larger count, a lower bound of the true union, which such formats cannot give.
 */
export function recordLineBranches(
  units: Map<string, number>,
  line: number,
  covered: number,
  total: number,
): void {
  for (let i = 0; i < total; i++) {
    recordHits(units, `${line}#${i}`, i < covered ? 1 : 0);
  }
}

/**
 * Unites two copies of a file's branches: branch by branch when both name their branches,
 * else the copy with more branches (counts alone cannot be united).
 */
export function mergeBranches(
  a: BranchCoverage | undefined,
  b: BranchCoverage | undefined,
): BranchCoverage | undefined {
  if (!a || !b) return a ?? b;
  if (!a.units || !b.units) return b.coverable > a.coverable ? b : a;
  const units = new Map(a.units());
  for (const [branch, hits] of b.units()) recordHits(units, branch, hits);
  return branchesFromUnits(units);
}

/** `file` with `branches`, or without any when undefined. */
export function withBranches(file: FileCoverage, branches: FileCoverage['branches']): FileCoverage {
  if (branches === file.branches) return file;
  const { branches: _, ...lines } = file;
  return branches ? { ...lines, branches } : lines;
}

/**
 * The branch totals of a list of files; undefined when no file carries branch data (a Go
 * profile, a report made without branch measurement), which is "no branch data", never 0 %.
 */
export function summariseBranches(files: readonly FileCoverage[]): BranchSummary | undefined {
  let covered = 0;
  let coverable = 0;
  let withBranches = 0;
  for (const file of files) {
    if (!file.branches) continue;
    withBranches++;
    covered += file.branches.covered;
    coverable += file.branches.coverable;
  }
  if (withBranches === 0) return undefined;
  return {
    covered,
    coverable,
    percent: coverable === 0 ? null : percentOf(covered, coverable),
    files: withBranches,
  };
}
