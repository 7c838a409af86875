import { usageError } from '../errors.js';
import {
  type Gathered,
  gatherReports,
  type ReportEntry,
  type ReportSpec,
  type UnknownPath,
} from '../gather-reports.js';
import type { Io } from '../io.js';
import type { PathMap } from '../paths/path-map.js';
import { keepFiles } from '../policy/path-globs.js';
import {
  branchLine,
  discoveryLines,
  plural,
  summaryLine,
  unknownPathsText,
  verboseLines,
  warningLines,
} from '../report-lines.js';
import { discoverReports, REPORT_NAME_GROUPS } from '../reports/discover.js';
import type { FileCoverage, ReportFormat } from '../reports/types.js';

/**
 * Reads and merges the reports of `covgate run`/`report` (without `--report`, those found
 * below the working folder) and says what was read on stderr:
 * with `--verbose` each report and file, then any warnings (files two reports name with
 * different lines, files outside the repository), then the summary line (not with `--json`).
 *
 * @throws CliError (exit 2) on a report that cannot be read, or no coverable lines at all
 */
export async function readReports(
  options: {
    report: ReportSpec[];
    format: ReportFormat | 'auto';
    pathMap: PathMap[];
    json: boolean;
    verbose: boolean;
    /** Refuse (exit 2) reports that name files the checkout does not have. */
    strictPaths?: boolean;
    /** Paths the policy ignores: left out of every total. */
    ignored?: ((path: string) => boolean) | null;
  },
  io: Io,
): Promise<Gathered> {
  const specs = options.report.length > 0 ? options.report : await discover(io, options.verbose);
  const gathered = await gatherReports({
    reports: specs,
    format: options.format,
    pathMaps: options.pathMap,
    cwd: io.cwd,
  });
  const { ignored } = options;
  const read = ignored ? keepFiles(gathered, (path) => !ignored(path)) : gathered;
  if (ignored && options.verbose) {
    const left = gathered.files.length - read.files.length;
    io.stderr.write(`covgate: the policy's ignore leaves out ${plural(left, 'file')}\n`);
  }
  if (options.verbose) for (const line of verboseLines(read)) io.stderr.write(`covgate: ${line}\n`);
  const unknown = unknownPathsText(read.unknown);
  if (options.strictPaths && unknown !== undefined)
    throw usageError(
      `${unknown}, and --strict-paths refuses them; nothing was posted (give the folder the paths are relative to with --path-prefix after the --report)`,
    );
  for (const line of warningLines(read)) io.stderr.write(`covgate: warning: ${line}\n`);
  if (read.summary.coverable === 0) {
    const paths = specs.map((s) => s.path);
    throw usageError(
      `${paths.join(', ')}: no coverable lines in the report${paths.length > 1 ? 's' : ''}`,
    );
  }
  if (!options.json) {
    io.stderr.write(`covgate: ${summaryLine(read.summary, read.reports)}\n`);
    if (read.branches) io.stderr.write(`covgate: ${branchLine(read.branches)}\n`);
  }
  return read;
}

/** A report as `--json` lists it. */
export function reportEntry(report: ReportEntry): ReportEntry {
  const { path, format, root, files, covered, coverable } = report;
  return { path, format, root, files, covered, coverable };
}

/** The files not in the checkout as `--json` lists them. */
export function unknownPaths(read: Gathered): UnknownPath[] {
  return read.unknown.map(({ path, report, checkout }) => ({ path, report, checkout }));
}

/** The source files as `--json` lists them: path, covered and coverable, sorted by path. */
export function sourceFiles(
  files: readonly FileCoverage[],
): { path: string; covered: number; coverable: number }[] {
  return files
    .map((f) => ({ path: f.path, covered: f.covered, coverable: f.coverable }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function discover(io: Io, verbose: boolean): Promise<ReportSpec[]> {
  const discovery = await discoverReports(io.cwd);
  for (const line of discoveryLines(discovery, verbose)) io.stderr.write(`covgate: ${line}\n`);
  if (discovery.found.length === 0) {
    const names = REPORT_NAME_GROUPS.flat().map(([name]) => name);
    throw usageError(
      `no coverage report found (searched ${plural(discovery.folders, 'folder')} for ${names.join(', ')}): pass --report PATH`,
    );
  }
  return discovery.found.map((f) => ({ path: f.path }));
}
