import { type FileCoverage, MalformedReport, type ParsedReport } from './types.js';
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
 * also counts branches; covgate reports the statement (line) percentage. A file without a
 * `summary` counts its `executed_lines` and `missing_lines`.
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
      files.push({ path, coverable, covered });
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
    const units = new Map<number | string, number>();
    for (const line of entry.missing_lines) units.set(count(line, `a missing line of ${path}`), 0);
    for (const line of entry.executed_lines)
      units.set(count(line, `an executed line of ${path}`), 1);
    files.push(fileFromUnits(path, units));
  }
  return { format: 'coverage-py', files };
}
