import { truncateToHundredths } from '../numbers/truncate-decimal.js';
import type { Outcome } from '../storage/store.js';
import { formatDelta } from './delta-format.js';

/** What a coverage-gate run is judged on; all values in percent or percentage points. */
export interface GateInput {
  /** Coverage of the run, 0..100; truncated to two decimals. */
  coverage: number;
  /** Coverage of the latest `pass` or `warn` run on the base branch, or null when none. */
  baseline: number | null;
  /** A drop larger than this many points is a `warn`. */
  warnThreshold: number;
  /** A drop larger than this many points is a `fail`; at least `warnThreshold`. */
  failThreshold: number;
}

/** The judgement of one run. */
export interface GateResult {
  outcome: Exclude<Outcome, 'pending' | 'skipped'>;
  /** `deltaHundredths` formatted: `+1.25`, `-0.40` or `0.00`. */
  delta: string;
  /** Coverage minus baseline in integer hundredths of a percentage point (0 without baseline). */
  deltaHundredths: number;
  /** The run's coverage truncated to two decimals (99.936 -> 99.93). */
  coverage: number;
  /** The baseline truncated to two decimals, or null without one. */
  baseline: number | null;
}

/**
 * Judges a run against its baseline.
 *
 * Coverage and baseline are truncated to integer hundredths first (never rounded up, so no
 * run passes on rounding; see {@link truncateToHundredths}) and subtracted as integers, so
 * `80.1 - 80.0` is exactly `+0.10`.
 * Without a baseline the delta is `0.00` and the outcome `pass`. Otherwise the outcome is
 * `fail` when delta < -failThreshold, else `warn` when delta < -warnThreshold, else `pass`:
 * a drop of exactly a threshold does not cross it. Thresholds are compared exactly as the
 * decimals they were written as (0.333 is not rounded to 0.33).
 *
 * Zero thresholds are accepted here (every drop crosses them); the HTTP layer may be stricter.
 *
 * @throws RangeError when a number is not finite, coverage or baseline is outside 0..100,
 *   a threshold is negative, or `warnThreshold` is above `failThreshold`.
 */
export function evaluateGate(input: GateInput): GateResult {
  const { coverage, baseline, warnThreshold, failThreshold } = input;
  assertPercentage('coverage', coverage);
  if (baseline !== null) {
    assertPercentage('baseline', baseline);
  }
  assertThreshold('warnThreshold', warnThreshold);
  assertThreshold('failThreshold', failThreshold);
  if (warnThreshold > failThreshold) {
    throw new RangeError(
      `warnThreshold (${warnThreshold}) must not exceed failThreshold (${failThreshold})`,
    );
  }

  const coverageHundredths = truncateToHundredths(coverage);
  const baselineHundredths = baseline === null ? null : truncateToHundredths(baseline);
  const deltaHundredths = baselineHundredths === null ? 0 : coverageHundredths - baselineHundredths;
  return {
    outcome: outcomeOf(deltaHundredths, warnThreshold, failThreshold),
    delta: formatDelta(deltaHundredths),
    deltaHundredths,
    coverage: coverageHundredths / 100,
    baseline: baselineHundredths === null ? null : baselineHundredths / 100,
  };
}

function outcomeOf(
  deltaHundredths: number,
  warnThreshold: number,
  failThreshold: number,
): Exclude<Outcome, 'pending' | 'skipped'> {
  if (crosses(deltaHundredths, failThreshold)) {
    return 'fail';
  }
  if (crosses(deltaHundredths, warnThreshold)) {
    return 'warn';
  }
  return 'pass';
}

/**
 * delta < -threshold, exactly. For an integer d and a threshold t >= 0 (in hundredths),
 * -d > t holds exactly when -d > floor(t), and floor(t) is the threshold's decimal digits
 * truncated to hundredths, so no binary rounding of the threshold is involved.
 */
function crosses(deltaHundredths: number, threshold: number): boolean {
  return -deltaHundredths > truncateToHundredths(threshold);
}

function assertPercentage(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0 || value > 100) {
    throw new RangeError(`${name} must be a finite percentage in 0..100, got ${value}`);
  }
}

function assertThreshold(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
}
