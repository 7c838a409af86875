import type { Gathered, UnknownPath } from './gather-reports.js';
import type { BranchSummary } from './reports/branches.js';
import { DISCOVERY_LIMITS, type Discovery } from './reports/discover.js';
import type { CoverageSummary } from './reports/merge.js';
import type { ReportFormat } from './reports/types.js';

/** `1 file`, `2 files`: a count with its noun, singular for one. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/**
 * The line covgate prints (stderr) once the reports are read, e.g.
 * `coverage/lcov.info (lcov): 15 of 26 lines in 1 file, 57.69%`.
 */
export function summaryLine(
  summary: CoverageSummary,
  reports: readonly { path: string; format: ReportFormat }[],
): string {
  const formats = [...new Set(reports.map((r) => r.format))].join(', ');
  const what =
    reports.length === 1
      ? `${reports[0]?.path} (${formats})`
      : `${reports.length} reports (${formats})`;
  const unit = formats === 'go' ? 'statements' : 'lines';
  return `${what}: ${summary.covered} of ${summary.coverable} ${unit} in ${plural(summary.files, 'file')}, ${summary.percent.toFixed(2)}%`;
}

/**
 * The line covgate prints (stderr) under the summary when the reports carry branch data, e.g.
 * `branches: 8 of 14 in 2 files, 57.14% (shown, not gated)`.
 */
export function branchLine(branches: BranchSummary): string {
  const files = plural(branches.files, 'file');
  if (branches.percent === null) return `branches: none in ${files} (shown, not gated)`;
  return `branches: ${branches.covered} of ${branches.coverable} in ${files}, ${branches.percent.toFixed(2)}% (shown, not gated)`;
}

/** How many files two reports name differently that covgate names before "and N more". */
const CLASHES_SHOWN = 10;

/** How many files not in the checkout the warning names before "and N more". */
const UNKNOWN_SHOWN = 3;

function unitOf(format: ReportFormat): string {
  return format === 'go' ? 'statements' : 'lines';
}

/**
 * `--verbose`: each report (its format, the folder its relative paths were taken from, its
 * counts), then each of its files as covgate names it, with the path the report wrote when
 * that differs.
 */
export function verboseLines(read: Gathered): string[] {
  const lines: string[] = [];
  for (const report of read.reports) {
    const unit = unitOf(report.format);
    lines.push(
      `${report.path}: ${report.format}, paths from ${report.root}, ${plural(report.files, 'file')}, ${report.covered} of ${report.coverable} ${unit}`,
    );
    report.parsed.files.forEach((file, i) => {
      const raw = report.raw[i];
      const from = raw !== undefined && raw !== file.path ? ` (${raw})` : '';
      lines.push(`  ${file.path}${from}: ${file.covered} of ${file.coverable} ${unit}`);
    });
  }
  for (const u of read.unknown)
    lines.push(`not in the checkout: ${unknownPathText(u)} (${u.report})`);
  return lines;
}

/** A file not in the checkout, with the checkout's spelling when only the case differs. */
function unknownPathText(u: UnknownPath): string {
  return u.checkout === null ? u.path : `${u.path} (case differs: the checkout has ${u.checkout})`;
}

/**
 * How many files the reports name that the checkout does not have, and the first few, e.g.
 * `2 files the reports name are not in the checkout: src/gone.js, src/A.js (case differs: the
 * checkout has src/a.js)`; undefined when there are none.
 */
export function unknownPathsText(unknown: readonly UnknownPath[]): string | undefined {
  if (unknown.length === 0) return undefined;
  const shown = unknown.slice(0, UNKNOWN_SHOWN).map(unknownPathText).join(', ');
  const more = unknown.length > UNKNOWN_SHOWN ? ` and ${unknown.length - UNKNOWN_SHOWN} more` : '';
  const files =
    unknown.length === 1
      ? '1 file the reports name is'
      : `${unknown.length} files the reports name are`;
  return `${files} not in the checkout: ${shown}${more}`;
}

/**
 * Warnings about paths: a file two reports name with different lines (probably two files
 * whose paths were written alike), files left outside the repository, and files the checkout
 * does not have.
 */
export function warningLines(read: Gathered): string[] {
  const lines = read.clashes.slice(0, CLASHES_SHOWN).map((clash) => {
    const [a, b] = clash.reports.map((i) => read.reports[i]?.path);
    const what = clash.by === 'line' ? 'last line' : 'coverable lines';
    return `${clash.path}: ${a} and ${b} name it with different lines (${what} ${clash.last[0]} and ${clash.last[1]}); if these are two files, tell them apart with --path-prefix after each --report`;
  });
  if (read.clashes.length > CLASHES_SHOWN)
    lines.push(
      `and ${plural(read.clashes.length - CLASHES_SHOWN, 'more file')} named alike with different lines`,
    );
  for (const report of read.reports) {
    if (report.outside.length === 0) continue;
    const examples = report.outside.slice(0, 2).join(', ');
    const more = report.outside.length > 2 ? ', ...' : '';
    lines.push(
      `${report.path}: ${plural(report.outside.length, 'file lies', 'files lie')} outside the repository (${examples}${more}); rewrite a leading folder with --path-map FROM=TO (e.g. --path-map /app/=)`,
    );
  }
  const unknown = unknownPathsText(read.unknown);
  if (unknown !== undefined)
    lines.push(
      `${unknown}; they are counted as they are (--verbose lists all): give the folder the paths are relative to with --path-prefix after the --report, or refuse such reports with --strict-paths`,
    );
  return lines;
}

/**
 * What the search for reports says: each report taken, the search stopped by a limit, and
 * with `--verbose` each file of a searched name that was not taken.
 */
export function discoveryLines(discovery: Discovery, verbose: boolean): string[] {
  const lines: string[] = [];
  if (verbose) {
    for (const skip of discovery.skipped) {
      const as = skip.format === undefined ? 'not a coverage report' : `reads as ${skip.format}`;
      lines.push(`skipped ${skip.path}: ${as}, not ${skip.expected.join(' or ')}`);
    }
  }
  for (const report of discovery.found) lines.push(`found ${report.path} (${report.format})`);
  if (discovery.stopped) {
    const limit =
      discovery.stopped === 'folders'
        ? `after ${plural(discovery.folders, 'folder')}`
        : `after ${DISCOVERY_LIMITS.ms / 1000} s`;
    lines.push(
      `warning: the search for reports stopped ${limit}; reports further down were not looked for: pass --report PATH for each`,
    );
  }
  return lines;
}
