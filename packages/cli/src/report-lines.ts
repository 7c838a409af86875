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
