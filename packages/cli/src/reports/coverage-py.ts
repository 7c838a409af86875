import { branchesFromUnits } from './branches.js';
import {
  type BranchCoverage,
  type FileCoverage,
  MalformedReport,
  type ParsedReport,
} from './types.js';
import { count, fileFromUnits } from './units.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when a parsed JSON document is coverage.py's `coverage json` output. */
export function isCoveragePyJson(doc: unknown): boolean {
  return isObject(doc) && isObject(doc.meta) && isObject(doc.files) && isObject(doc.totals);
}

/**
 * Reads coverage.py's JSON report (`coverage json`). Line coverage as coverage.py defines it
 * without branches: statements, each file's `summary.covered_lines` of
 * `summary.num_statements` (its `executed_lines` may also list a docstring, which is no
 * statement, so they are not counted). With `--branch`, coverage.py's own `percent_covered`
 * also counts branches; covgate reports the statement (line) percentage, and the branches
 * beside it (see `branchesOf`). A file without a
 * `summary` counts its `executed_lines` and `missing_lines`. Both lists are the file's
 * `lines`, which patch coverage reads.
 */
export function parseCoveragePy(doc: unknown): ParsedReport {
  if (!isCoveragePyJson(doc))
    throw new MalformedReport('not a coverage.py JSON report (meta, files, totals)');
  const files: FileCoverage[] = [];
  for (const [path, entry] of Object.entries((doc as { files: Json }).files)) {
    if (isObject(entry) && isObject(entry.summary) && entry.summary.num_statements !== undefined) {
      const coverable = count(entry.summary.num_statements, `summary.num_statements of ${path}`);
      const covered = count(entry.summary.covered_lines, `summary.covered_lines of ${path}`);
      if (covered > coverable) throw new MalformedReport(`${path} covers more lines than it has`);
      const { executed_lines: executed, missing_lines: missing } = entry;
      const excluded = Array.isArray(entry.excluded_lines) ? entry.excluded_lines : [];
      const branches = branchesOf(entry, path);
      const file: FileCoverage = { path, coverable, covered };
      if (Array.isArray(executed) && Array.isArray(missing)) {
        // Checked now, built when the patch needs it.
        lineMap(path, executed, missing, excluded);
        file.lines = () => lineMap(path, executed, missing, excluded);
      }
      if (branches) file.branches = branches;
      files.push(file);
      continue;
    }
    if (
      !isObject(entry) ||
      !Array.isArray(entry.executed_lines) ||
      !Array.isArray(entry.missing_lines)
    ) {
      throw new MalformedReport(
        `the entry of ${path} has no summary and no executed_lines and missing_lines`,
      );
    }
    const excluded = Array.isArray(entry.excluded_lines) ? entry.excluded_lines : [];
    files.push(
      fileFromUnits(path, lineMap(path, entry.executed_lines, entry.missing_lines, excluded)),
    );
  }
  return { format: 'coverage-py', files };
}

/**
 * A file's branches as `coverage report --branch` counts them: `summary.num_branches`, of which
 * `summary.covered_branches` ran, each an arc (`[from, to]`) of `executed_branches` or
 * `missing_branches`. Undefined for a report made without `--branch` (`meta.branch_coverage`
 * false: no `num_branches`).
 */
function branchesOf(entry: Json, path: string): BranchCoverage | undefined {
  const summary = entry.summary as Json;
  if (summary.num_branches === undefined) return undefined;
  const coverable = count(summary.num_branches, `summary.num_branches of ${path}`);
  const covered = count(summary.covered_branches, `summary.covered_branches of ${path}`);
  if (covered > coverable) throw new MalformedReport(`${path} covers more branches than it has`);
  const { executed_branches: executed, missing_branches: missing } = entry;
  if (!Array.isArray(executed) || !Array.isArray(missing)) return { coverable, covered };
  const units = new Map<string, number>();
  const arc = (value: unknown) => {
    if (!Array.isArray(value) || value.length !== 2 || !value.every(Number.isInteger)) {
      throw new MalformedReport(`a branch of ${path} is not a [from, to] arc`);
    }
    return `${value[0]}>${value[1]}`;
  };
  for (const branch of missing) units.set(arc(branch), 0);
  for (const branch of executed) units.set(arc(branch), 1);
  const named = branchesFromUnits(units);
  // The arcs name the branches the summary counts; if a version ever lists others, the
  // summary's figures stand and the branches are kept as counts only.
  return named.coverable === coverable && named.covered === covered
    ? named
    : { coverable, covered };
}

/**
 * Each line of `missing` with 0 hits and of `executed` with 1, but for `excluded` lines:
 * coverage.py lists a line excluded by `# pragma: no cover` (or `exclude_lines`) that ran among
 * its `executed_lines` too, yet counts it nowhere, as its XML report, which lists statements
 * only, shows.
 */
function lineMap(
  path: string,
  executed: unknown[],
  missing: unknown[],
  excluded: unknown[],
): Map<number, number> {
  const lines = new Map<number, number>();
  const skipped = new Set(excluded.map((line) => count(line, `an excluded line of ${path}`)));
  for (const line of missing) lines.set(count(line, `a missing line of ${path}`), 0);
  for (const line of executed) {
    const number = count(line, `an executed line of ${path}`);
    if (!skipped.has(number)) lines.set(number, 1);
  }
  return lines;
}
