import type { Execution } from '@covgate/client';
import { truncateDecimal } from '@covgate/core/percent';

/**
 * What the dashboard shows of a run's judgement: its outcome, or `none` when the base branch
 * had no run to compare it with (the API's `pass` with delta `0.00` then judged nothing).
 */
export type Verdict = Execution['outcome'] | 'none';

/**
 * What a run said about its baseline: the record or its coverage, null when there was none,
 * absent (undefined) for a record stored before baselines were kept.
 */
interface Compared {
  baseline?: unknown;
}

/**
 * The verdict of a run; a record from before baselines were kept shows its outcome. A run
 * without a baseline that failed was failed by the patch rule, which judged it: `fail`.
 */
export function verdictOf(execution: Pick<Execution, 'outcome'> & Compared): Verdict {
  if (execution.outcome === 'skipped') return 'skipped';
  return execution.baseline === null && execution.outcome !== 'fail' ? 'none' : execution.outcome;
}

/** Verdict words shown beside every verdict colour (colour is never the only signal). */
export const VERDICT_LABEL: Record<Verdict, string> = {
  pass: 'Pass',
  warn: 'Warn',
  fail: 'Fail',
  pending: 'Waiting for parts',
  skipped: 'Skipped',
  none: 'No baseline',
};

/**
 * `84.13%`, always two decimals, truncated like the API and the badge (`99.936` -> `99.93%`);
 * `not measured` for a skipped commit's (null).
 */
export function formatCoverage(coverage: number | null): string {
  return coverage === null ? 'not measured' : `${truncateDecimal(coverage)}%`;
}

/** `+1.25 pts` / `0.00 pts`: the API's delta with its unit; `nothing to compare` without a baseline. */
export function formatComparison(
  execution: Pick<Execution, 'delta' | 'outcome'> & Compared,
): string {
  if (execution.outcome === 'skipped') return 'nothing measured';
  return execution.baseline === null ? 'nothing to compare' : `${execution.delta} pts`;
}

/** `2026-11-22 19:03 UTC` from the API's `2026-11-22T19:03:41Z`. */
export function formatTimestamp(timestamp: string): string {
  return `${timestamp.slice(0, 10)} ${timestamp.slice(11, 16)} UTC`;
}

/** A run's time on the chart's axis: `11-24 16:07` (UTC; the readout gives the year). */
export function formatAxisTime(timestamp: string): string {
  return `${timestamp.slice(5, 10)} ${timestamp.slice(11, 16)}`;
}

/** `9:05` for 545 000 ms; rounds up so the countdown reaches 0:00 at the deadline. */
export function formatCountdown(milliseconds: number): string {
  const total = Math.max(0, Math.ceil(milliseconds / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/**
 * The branch drawn as the baseline: the records carry no base branch, so `main` when the
 * history has it, else `master`, else the branch with the most records.
 */
export function pickBaseBranch(executions: readonly Pick<Execution, 'branch'>[]): string | null {
  const counts = new Map<string, number>();
  for (const { branch } of executions) counts.set(branch, (counts.get(branch) ?? 0) + 1);
  if (counts.has('main')) return 'main';
  if (counts.has('master')) return 'master';
  let best: string | null = null;
  for (const [branch, count] of counts) {
    if (best === null || count > (counts.get(best) ?? 0)) best = branch;
  }
  return best;
}

/** The Markdown a README needs to show the badge, linking to the repository's page. */
export function badgeMarkdown(badge: string, pageUrl: string): string {
  return `[![coverage](${badge})](${pageUrl})`;
}

/** Quotes a value for a POSIX shell when it holds anything but safe characters. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Whether a URL's host is this machine (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`,
 * `0.0.0.0`): a CI runner reaching it would reach itself, not the covgate server.
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127(\.\d{1,3}){3}$/.test(host) ||
    host === '[::1]' ||
    host === '0.0.0.0'
  );
}
