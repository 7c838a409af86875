import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { usageError } from '../errors.js';
import {
  type Gathered,
  gatherReports,
  type ReportEntry,
  type ReportSpec,
} from '../gather-reports.js';
import type { Io } from '../io.js';
import type { PathMap } from '../paths/path-map.js';
import { summaryLine, verboseLines, warningLines } from '../report-lines.js';
import type { FileCoverage, ReportFormat } from '../reports/types.js';

/** Where reports are looked for, in this order, when no `--report` is given. */
export const DEFAULT_REPORT_PATHS: readonly string[] = [
  'coverage/lcov.info',
  'coverage/coverage-final.json',
  'coverage/cobertura-coverage.xml',
  'coverage/clover.xml',
  'coverage.xml',
  'coverage.json',
  'coverage.out',
  'target/site/jacoco/jacoco.xml',
  'build/reports/jacoco/test/jacocoTestReport.xml',
];

/**
 * Reads and merges the reports of `covgate run`/`report` and says what was read on stderr:
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
  },
  io: Io,
): Promise<Gathered> {
  const specs =
    options.report.length > 0 ? options.report : [{ path: await findDefaultReport(io.cwd) }];
  const read = await gatherReports({
    reports: specs,
    format: options.format,
    pathMaps: options.pathMap,
    cwd: io.cwd,
  });
  if (options.verbose) for (const line of verboseLines(read)) io.stderr.write(`covgate: ${line}\n`);
  for (const line of warningLines(read)) io.stderr.write(`covgate: warning: ${line}\n`);
  if (read.summary.coverable === 0) {
    const paths = specs.map((s) => s.path);
    throw usageError(
      `${paths.join(', ')}: no coverable lines in the report${paths.length > 1 ? 's' : ''}`,
    );
  }
  if (!options.json) io.stderr.write(`covgate: ${summaryLine(read.summary, read.reports)}\n`);
  return read;
}

/** A report as `--json` lists it. */
export function reportEntry(report: ReportEntry): ReportEntry {
  const { path, format, root, files, covered, coverable } = report;
  return { path, format, root, files, covered, coverable };
}

/** A source file as `--json` lists it. */
export function sourceFile(file: FileCoverage): {
  path: string;
  covered: number;
  coverable: number;
} {
  return { path: file.path, covered: file.covered, coverable: file.coverable };
}

async function findDefaultReport(cwd: string): Promise<string> {
  for (const path of DEFAULT_REPORT_PATHS) {
    try {
      if ((await stat(resolve(cwd, path))).isFile()) return path;
    } catch {
      // Not there; try the next one.
    }
  }
  throw usageError(
    `no coverage report found (looked for ${DEFAULT_REPORT_PATHS.join(', ')}): pass --report PATH`,
  );
}
