import type { Baseline, Execution, Patch } from '@covgate/client';
import { truncateDecimal } from '@covgate/core/percent';
import type { FileChange } from './run-types.js';

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

/** Where a patch target came from, as a phrase: `set by the run`. */
export const TARGET_SOURCE_LABEL: Record<Patch['target_source'], string> = {
  run: 'set by the run',
  repository: 'the repository’s default',
  default: 'covgate’s default',
};

/** How the baseline was chosen, as a phrase ending a sentence. */
export function baselineChoice(baseline: Baseline): string {
  if (baseline.selected_by === 'base_commit') return `the ${baseline.branch} run at the merge base`;
  if (baseline.selected_by === 'latest') {
    return `the latest passing ${baseline.branch} run (none at the merge base)`;
  }
  return `the latest passing ${baseline.branch} run`;
}

/** A run as the verdict sentence needs it. */
export type Judged = Pick<Execution, 'outcome' | 'delta' | 'baseline' | 'patch' | 'decided_by'>;

/**
 * One sentence saying what decided the outcome: the patch rule (with the figure, target
 * and where the target came from), the coverage change, or nothing to compare.
 */
export function verdictSentence(run: Judged): string {
  const patch = run.patch;
  if (run.decided_by === 'patch' && patch) {
    return `Failed by the patch rule: ${formatPercent(patch.percent)} of the patch’s lines are covered, below the target of ${formatPercent(patch.target)} (${TARGET_SOURCE_LABEL[patch.target_source]}).`;
  }
  const patchPart = patch
    ? patch.percent === null
      ? ' The patch has no coverable line, so the patch rule passes it.'
      : ` The patch meets its target: ${formatPercent(patch.percent)} covered, target ${formatPercent(patch.target)} (${TARGET_SOURCE_LABEL[patch.target_source]}).`
    : '';
  if (run.baseline === null) {
    return `No baseline: the base branch had no run to compare with, so the coverage change judged nothing.${patchPart}`;
  }
  const delta = `${run.delta} pts against the baseline`;
  if (run.outcome === 'fail') return `Failed by the coverage change: ${delta}.${patchPart}`;
  if (run.outcome === 'warn') return `Warned by the coverage change: ${delta}.${patchPart}`;
  return `Passed: ${delta}.${patchPart}`;
}
