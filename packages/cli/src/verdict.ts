import type { ReportEntry } from './gather-reports.js';
import type { MeasuredPatch } from './patch/measured-patch.js';
import {
  combineOutcome,
  type DecidingRule,
  decidedClause,
  patchClause,
  patchMarkdown,
} from './patch/patch-verdict.js';
import type { CoverageSummary } from './reports/merge.js';

/** The gate's verdict of a run, as covgate prints it. */
export interface Verdict {
  /** The run's outcome: the service's, unless the patch rule failed the run. */
  outcome: 'pass' | 'warn' | 'fail';
  /** The rule whose outcome `outcome` is. */
  decided_by: DecidingRule;
  /** The outcome the service recorded (its delta thresholds; it does not store patches yet). */
  recorded_outcome: 'pass' | 'warn' | 'fail';
  repo: string;
  branch: string;
  base_branch: string;
  commit: string | null;
  /** The coverage posted, two decimals. */
  coverage: number;
  /** The baseline the server compared with (`coverage - delta`); equal to `coverage` without one. */
  baseline: number;
  /** The server's signed delta string (`+0.25`, `-1.10`, `0.00`). */
  delta: string;
  covered_lines: number;
  coverable_lines: number;
  files: number;
  /** Each report read, with the folder its relative paths were taken from and its counts. */
  reports: ReportEntry[];
  /** Each source file, repository-relative, sorted by path. */
  source_files: { path: string; covered: number; coverable: number }[];
  /** The coverage of the lines the change adds or modifies; null when not measured. */
  patch: MeasuredPatch | null;
  /** Why no patch was measured; null when one was. */
  patch_skipped: string | null;
  execution_id: string;
  created_at: string;
  /** What covgate exits with. */
  exit_code: number;
}

/** The exit code of a verdict: 1 on `fail`, and on `warn` with `--fail-on-warn`; else 0. */
export function exitCodeOf(outcome: Verdict['outcome'], failOnWarn: boolean): number {
  return outcome === 'fail' || (outcome === 'warn' && failOnWarn) ? 1 : 0;
}

/** The baseline behind a delta: `coverage - delta`, two decimals. */
export function baselineOf(coverage: number, delta: string): number {
  return Math.round((coverage - Number(delta)) * 100) / 100;
}

/** Colour functions; identity when colour is off. */
export interface Paint {
  green: (s: string) => string;
  yellow: (s: string) => string;
  red: (s: string) => string;
  bold: (s: string) => string;
}

/**
 * One readable line: outcome, repo@branch, coverage, baseline and delta, then the patch
 * coverage when measured, and the patch rule when it failed the run.
 */
export function verdictLine(verdict: Verdict, paint: Paint): string {
  const colour =
    verdict.outcome === 'pass'
      ? paint.green
      : verdict.outcome === 'warn'
        ? paint.yellow
        : paint.red;
  return `${colour(paint.bold(verdict.outcome))} ${verdict.repo}@${verdict.branch}: coverage ${verdict.coverage.toFixed(2)}%, baseline ${verdict.baseline.toFixed(2)}% on ${verdict.base_branch}, delta ${verdict.delta}${patchClause(verdict.patch)}${decidedClause(verdict.decided_by, verdict.outcome)}`;
}

/** The Markdown appended to `GITHUB_STEP_SUMMARY`. */
export function stepSummary(verdict: Verdict): string {
  const mark = verdict.outcome === 'pass' ? '✅' : verdict.outcome === 'warn' ? '⚠️' : '❌';
  const commit = verdict.commit ? ` at \`${verdict.commit.slice(0, 12)}\`` : '';
  return [
    `### ${mark} covgate: ${verdict.outcome}`,
    '',
    `${cell(verdict.repo)} on ${cell(verdict.branch)}${commit}`,
    '',
    '| coverage | baseline | delta | outcome | lines |',
    '|---:|---:|---:|---|---:|',
    `| ${verdict.coverage.toFixed(2)}% | ${verdict.baseline.toFixed(2)}% (${cell(verdict.base_branch)}) | ${verdict.delta} | ${verdict.outcome} | ${verdict.covered_lines} / ${verdict.coverable_lines} |`,
    '',
    '',
    ...patchMarkdown(verdict.patch, cell),
  ].join('\n');
}

// Branch and repository names are user-controlled: keep them from breaking the table.
function cell(text: string): string {
  return `\`${text.replace(/[`|\r\n]/g, ' ')}\``;
}

/** Builds the verdict from the summary of the reports and the record the server answered. */
export function buildVerdict(input: {
  summary: CoverageSummary;
  reports: ReportEntry[];
  sourceFiles: Verdict['source_files'];
  baseBranch: string;
  patch: MeasuredPatch | null;
  patchSkipped: string | null;
  record: {
    id: string;
    repo: string;
    branch: string;
    outcome: 'pass' | 'warn' | 'fail';
    delta: string;
    coverage: number;
    commit: string | null;
    created_at: string;
  };
  failOnWarn: boolean;
}): Verdict {
  const { summary, record } = input;
  const { outcome, decided_by } = combineOutcome(record.outcome, input.patch);
  return {
    outcome,
    decided_by,
    recorded_outcome: record.outcome,
    repo: record.repo,
    branch: record.branch,
    base_branch: input.baseBranch,
    commit: record.commit,
    coverage: record.coverage,
    baseline: baselineOf(record.coverage, record.delta),
    delta: record.delta,
    covered_lines: summary.covered,
    coverable_lines: summary.coverable,
    files: summary.files,
    reports: input.reports,
    source_files: input.sourceFiles,
    patch: input.patch,
    patch_skipped: input.patchSkipped,
    execution_id: record.id,
    created_at: record.created_at,
    exit_code: exitCodeOf(outcome, input.failOnWarn),
  };
}
