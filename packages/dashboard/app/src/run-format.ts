import type { Baseline } from '@covgate/client';
import { truncateDecimal } from '@covgate/core/percent';
import type { FileChange, RunDetail } from './run-types.js';

/** `84.13%` for the API's two-decimal percent; `—` for a file or patch of no coverable line. */
export function formatPercent(percent: number | null): string {
  return percent === null ? '—' : `${truncateDecimal(percent)}%`;
}

/** `+1.25 pts`, `-3.50 pts`, `0.00 pts`: a change in percentage points, sign always shown. */
export function formatPoints(change: number): string {
  const text = truncateDecimal(change);
  return `${text.startsWith('-') || text === '0.00' ? '' : '+'}${text} pts`;
}

/** `1,234`: a count of lines with thousands separators. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** `12 / 40`: covered of coverable lines. */
export function formatLines(covered: number, coverable: number): string {
  return `${formatCount(covered)} / ${formatCount(coverable)}`;
}

/** Branch counts as the API shows a run's or a folder's: with their truncated percent. */
export interface BranchFigure {
  covered: number;
  total: number;
  percent: number | null;
}

/**
 * A run's branch figure in words: `61.11% (11 / 18 branches)`; `no branch listed` for reports
 * that list none; `no branch data` for a run that sent none (never 0 %).
 */
export function formatBranches(branches: BranchFigure | undefined): string {
  if (branches === undefined) return 'no branch data';
  if (branches.percent === null) return 'no branch listed';
  return `${formatPercent(branches.percent)} (${formatLines(branches.covered, branches.total)} branches)`;
}

/** A run's branch figure in a list of runs: `61.11% of branches`, `no branch listed`. */
export function formatRunBranches(branches: BranchFigure): string {
  return branches.percent === null
    ? 'no branch listed'
    : `${formatPercent(branches.percent)} of branches`;
}

/**
 * covered / coverable in percent, truncated to hundredths as the API computes a file's and a
 * folder's percent (`GET /v1/executions/{id}`; covgate never rounds coverage up); null for no
 * coverable line.
 */
export function percentOf(covered: number, coverable: number): number | null {
  return coverable === 0 ? null : Math.floor((covered * 10_000) / coverable) / 100;
}

/** Whether a changed file is new in this run, gone from it, or in both runs. */
export function changeKind(file: FileChange): 'added' | 'removed' | 'changed' {
  if (file.baseline_coverable === null) return 'added';
  if (file.coverable === null) return 'removed';
  return 'changed';
}

/** What the Change column says of a file: its points, or that it was added or removed. */
export function formatFileChange(file: FileChange): string {
  const kind = changeKind(file);
  if (kind === 'added') return 'new file';
  if (kind === 'removed') return 'removed';
  return formatPoints(file.change ?? 0);
}

/** How the baseline was chosen, as a phrase ending a sentence. */
export function baselineChoice(baseline: Baseline): string {
  if (baseline.selected_by === 'base_commit') return `the ${baseline.branch} run at the merge base`;
  if (baseline.selected_by === 'latest') {
    return `the latest passing ${baseline.branch} run (none at the merge base)`;
  }
  return `the latest passing ${baseline.branch} run`;
}

/**
 * What the page says of a run that sent no patch, short (the figures) and in a sentence (the
 * patch section): a run of a change (a pull request, or a merge base sent) whose patch was not
 * measured is told apart from a run that is not of a pull request at all.
 */
export function missingPatch(run: Pick<RunDetail, 'pull_request' | 'base_commit'>): {
  short: string;
  sentence: string;
} {
  if (run.pull_request !== undefined || run.base_commit !== undefined) {
    const change =
      run.pull_request === undefined ? 'this change' : `pull request #${run.pull_request}`;
    return {
      short: `Not measured: the run of ${change} sent no patch.`,
      sentence: `The patch of ${change} was not measured: its run sent no patch, so only the total coverage was judged. The CLI measures it from the merge base when the history reaches it (in CI, check out with fetch-depth: 0).`,
    };
  }
  return {
    short: 'Not a pull request: the run judged the total only.',
    sentence:
      'Not a pull request: a run of a branch has no patch to judge, only its total coverage.',
  };
}
