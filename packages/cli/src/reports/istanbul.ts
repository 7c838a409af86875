import { branchesFromUnits } from './branches.js';
import {
  type BranchCoverage,
  type FileCoverage,
  MalformedReport,
  type ParsedReport,
} from './types.js';
import { count, fileFromUnits, recordHits } from './units.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when a parsed JSON document is an Istanbul `coverage-summary.json`. */
export function isIstanbulSummary(doc: unknown): boolean {
  return isObject(doc) && isObject(doc.total) && isObject(doc.total.lines);
}

/**
 * True when a parsed JSON document is an Istanbul `coverage-final.json` (a file coverage map),
 * including the empty map `{}` that c8, nyc and Jest write when the tests loaded no file they
 * instrument.
 */
export function isIstanbulFinal(doc: unknown): boolean {
  if (!isObject(doc)) return false;
  const entries = Object.values(doc);
  if (entries.length === 0) return true;
  const first = entries[0];
  const data = isObject(first) && isObject(first.data) ? first.data : first;
  return isObject(data) && isObject(data.statementMap) && isObject(data.s);
}

/**
 * Reads an Istanbul JSON report, either form (c8, nyc, Jest, Vitest):
 * - `coverage-summary.json` (`json-summary` reporter): each file's `lines.covered` of
 *   `lines.total`, the numbers istanbul's text summary prints;
 * - `coverage-final.json` (`json` reporter): lines as istanbul's `getLineCoverage()` derives
 *   them, the start line of each statement, covered when any statement starting on it ran;
 *   except where a file carries its own line map `l` (the istanbul 0.x shape, written by
 *   solidity-coverage), which istanbul 0.x's summary and lcov reporters count instead.
 *
 * Branches as istanbul's summary counts them: each path of each branch of `b` (the summary's
 * `branches.total` and `branches.covered`).
 */
export function parseIstanbul(doc: unknown): ParsedReport {
  if (isIstanbulSummary(doc)) return { format: 'istanbul', files: summaryFiles(doc as Json) };
  if (isIstanbulFinal(doc)) return { format: 'istanbul', files: finalFiles(doc as Json) };
  throw new MalformedReport('not an Istanbul coverage-summary.json or coverage-final.json');
}

function summaryFiles(doc: Json): FileCoverage[] {
  const files: FileCoverage[] = [];
  for (const [path, entry] of Object.entries(doc)) {
    if (path === 'total') continue;
    if (!isObject(entry) || !isObject(entry.lines)) {
      throw new MalformedReport(`the entry of ${path} has no lines summary`);
    }
    const coverable = count(entry.lines.total, `lines.total of ${path}`);
    const covered = count(entry.lines.covered, `lines.covered of ${path}`);
    if (covered > coverable) throw new MalformedReport(`${path} covers more lines than it has`);
    const branches = summaryBranches(entry.branches, path);
    files.push(branches ? { path, coverable, covered, branches } : { path, coverable, covered });
  }
  return files;
}

function finalFiles(doc: Json): FileCoverage[] {
  const files: FileCoverage[] = [];
  for (const [key, entry] of Object.entries(doc)) {
    const data = isObject(entry) && isObject(entry.data) ? entry.data : entry;
    if (!isObject(data) || !isObject(data.statementMap) || !isObject(data.s)) {
      throw new MalformedReport(`the entry of ${key} has no statementMap and s`);
    }
    const path = typeof data.path === 'string' ? data.path : key;
    const branches = finalBranches(data.b, data.branchMap, key);
    if (isObject(data.l)) {
      files.push(withBranchesOf(fileFromUnits(path, lineMapUnits(data.l, key)), branches));
      continue;
    }
    const units = new Map<number | string, number>();
    for (const [id, statement] of Object.entries(data.statementMap)) {
      const start = isObject(statement) && isObject(statement.start) ? statement.start : undefined;
      const line = count(start?.line, `statement ${id} of ${key}: start.line`);
      recordHits(units, line, count(data.s[id] ?? 0, `s[${id}] of ${key}`));
    }
    files.push(withBranchesOf(fileFromUnits(path, units), branches));
  }
  return files;
}

function withBranchesOf(file: FileCoverage, branches: BranchCoverage | undefined): FileCoverage {
  return branches ? { ...file, branches } : file;
}

/**
 * A file's branches from its branch map `b` (`{"1": [3, 0]}`: branch 1 has two paths, the
 * first taken 3 times), as istanbul's summary counts them: each path is a branch, covered
 * when taken. Undefined when the file has no `b`.
 */
function finalBranches(b: unknown, branchMap: unknown, key: string): BranchCoverage | undefined {
  if (!isObject(b)) return undefined;
  const units = new Map<string, number>();
  for (const [id, paths] of Object.entries(b)) {
    if (!Array.isArray(paths)) throw new MalformedReport(`b[${id}] of ${key} is not a list`);
    // The line istanbul's lcov reporter writes on the branch's BRDA: its start line.
    const line = branchStartLine(isObject(branchMap) ? branchMap[id] : undefined);
    const name = line === null ? `b${id}` : `${line}:b${id}`;
    paths.forEach((hits, index) => {
      units.set(`${name}:${index}`, count(hits, `b[${id}][${index}] of ${key}`));
    });
  }
  return branchesFromUnits(units);
}

/** A branch map entry's line: `loc.start.line`, or istanbul 0.x's `line`; null without one. */
function branchStartLine(entry: unknown): number | null {
  if (!isObject(entry)) return null;
  const loc = entry.loc;
  const start = isObject(loc) ? loc.start : undefined;
  const line = isObject(start) ? start.line : entry.line;
  return Number.isInteger(line) && (line as number) > 0 ? (line as number) : null;
}

/** A summary entry's `branches.total` and `branches.covered`, as counts only. */
function summaryBranches(branches: unknown, path: string): BranchCoverage | undefined {
  if (!isObject(branches)) return undefined;
  const coverable = count(branches.total, `branches.total of ${path}`);
  const covered = count(branches.covered, `branches.covered of ${path}`);
  if (covered > coverable) throw new MalformedReport(`${path} covers more branches than it has`);
  return { coverable, covered };
}

/** The hits of an istanbul 0.x line map `l` (`{"12": 3}`), keyed by line number. */
function lineMapUnits(lineMap: Json, key: string): Map<number | string, number> {
  const units = new Map<number | string, number>();
  for (const [line, hits] of Object.entries(lineMap)) {
    recordHits(units, count(line, `a line of l of ${key}`), count(hits, `l[${line}] of ${key}`));
  }
  return units;
}
