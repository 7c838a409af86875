import { truncateToHundredths } from '../numbers/truncate-decimal.js';
import type { DecidingRule, Outcome } from '../storage/store.js';
import { linePercentHundredths } from './line-percent.js';

/**
 * The patch target of a run that sends none and whose repository has no default: 80 %,
 * SonarQube's "coverage on new code" condition of its default quality gate ("Sonar way").
 */
export const DEFAULT_PATCH_TARGET = 80;

/** A patch's line counts and the target it is judged with. */
export interface PatchInput {
  /** Changed coverable lines that ran. */
  covered: number;
  /** Changed coverable lines; 0 for a patch that changes none. */
  coverable: number;
  /** Percent, 0..100. */
  target: number;
}

/** The patch rule's judgement. */
export interface PatchResult {
  /** covered / coverable in percent, truncated to hundredths; null for an empty patch. */
  percent: number | null;
  /** False only when the percentage is below the target; an empty patch passes. */
  passed: boolean;
}

/**
 * The patch rule: a patch whose coverage, truncated to hundredths as it is shown, is below
 * the target (its decimals truncated likewise) fails; a patch without a coverable line passes,
 * since it adds nothing to test.
 */
export function evaluatePatch(input: PatchInput): PatchResult {
  const { covered, coverable, target } = input;
  const hundredths = linePercentHundredths(covered, coverable);
  if (hundredths === null) return { percent: null, passed: true };
  return { percent: hundredths / 100, passed: hundredths >= truncateToHundredths(target) };
}

/**
 * The outcome of a run from the delta thresholds' outcome and the patch rule: the patch rule
 * can only turn a `pass` or `warn` into a `fail`; when the thresholds already fail the run,
 * they are the rule that decided.
 */
export function decideOutcome(
  deltaOutcome: Outcome,
  patch: PatchResult | null,
): { outcome: Outcome; decidedBy: DecidingRule } {
  if (deltaOutcome !== 'fail' && patch !== null && !patch.passed) {
    return { outcome: 'fail', decidedBy: 'patch' };
  }
  return { outcome: deltaOutcome, decidedBy: 'delta' };
}
