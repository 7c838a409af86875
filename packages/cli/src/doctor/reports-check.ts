import { CliError } from '../errors.js';
import { gatherReports, type ReportSpec } from '../gather-reports.js';
import type { PathMap } from '../paths/path-map.js';
import { plural, summaryLine, unknownPathsText } from '../report-lines.js';
import { discoverReports, REPORT_NAME_GROUPS } from '../reports/discover.js';
import type { ReportFormat } from '../reports/types.js';
import { type Finding, fail, pass, warn } from './check.js';

/** The report options of `covgate run`, which the check reads the reports with. */
export interface ReportOptions {
  report: ReportSpec[];
  format: ReportFormat | 'auto';
  pathMap: PathMap[];
  strictPaths?: boolean;
}

/**
 * Which reports `covgate run` would read (the `--report`s, else those it finds below the
 * working folder), their formats and totals, and the files they name that the checkout does
 * not have, read with the CLI's own functions.
 */
export async function checkReports(options: ReportOptions, cwd: string): Promise<Finding> {
  let specs = options.report;
  if (specs.length === 0) {
    const discovery = await discoverReports(cwd);
    if (discovery.found.length === 0) {
      const names = REPORT_NAME_GROUPS.flat().map(([name]) => name);
      return fail(
        `no coverage report found below ${cwd} (searched ${plural(discovery.folders, 'folder')} for ${names.join(', ')})`,
        'run covgate doctor after the tests wrote their report, or name it with --report PATH',
      );
    }
    specs = discovery.found.map((found) => ({ path: found.path }));
  }
  let read: Awaited<ReturnType<typeof gatherReports>>;
  try {
    read = await gatherReports({
      reports: specs,
      format: options.format,
      pathMaps: options.pathMap,
      cwd,
    });
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return fail(
      error.message,
      'give the report a coverage tool wrote with --report (and --format)',
    );
  }
  if (read.summary.coverable === 0) {
    return fail(
      `${specs.map((s) => s.path).join(', ')}: no coverable lines`,
      'check that the tests ran with coverage of the sources (c8 --all, --coverage.include ...)',
    );
  }
  const each = read.reports.map((report) => `${report.path} (${report.format})`).join(', ');
  const summary = `${read.reports.length > 1 ? `${each}; ` : ''}${summaryLine(read.summary, read.reports)}`;
  const unknown = unknownPathsText(read.unknown);
  if (unknown === undefined) return pass(summary);
  const fix =
    'give the folder the paths are relative to with --path-prefix after the --report, or rewrite a leading folder with --path-map FROM=TO';
  return options.strictPaths
    ? fail(`${summary}; ${unknown}`, fix)
    : warn(`${summary}; ${unknown}`, fix);
}
