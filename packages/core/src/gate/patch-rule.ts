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
 * The project target (an absolute floor): a run whose coverage, truncated to hundredths as it
 * is shown, is below the target (its decimals truncated likewise) fails it.
 */
export function evaluateProjectTarget(input: { coverage: number; target: number }): {
  passed: boolean;
} {
  return { passed: truncateToHundredths(input.coverage) >= truncateToHundredths(input.target) };
}

/** The rules a run's policy makes informational: they report but never fail it. */
export interface Informational {
  /** The delta thresholds and the project target. */
  project?: boolean;
  /** The patch rule. */
  patch?: boolean;
}

/**
 * The outcome of the gate's rules: `pending` is a commit report's and `skipped` a commit's
 * with nothing to measure, never a rule's.
 */
export type RuleOutcome = Exclude<Outcome, 'pending' | 'skipped'>;

const RANK: Readonly<Record<RuleOutcome, number>> = { pass: 0, warn: 1, fail: 2 };

/**
 * The outcome of a run from the delta thresholds' outcome, the project target and the patch
 * rule. The project target turns a `pass` or `warn` into a `fail`; the patch rule then can
 * only make the outcome worse. An informational rule's `fail` counts as a `warn`. The rule
 * named is the one whose outcome it is: the delta thresholds when they already judged that
 * badly (they come first), else the project target, else the patch rule.
 */
export function decideOutcome(
  deltaOutcome: RuleOutcome,
  patch: PatchResult | null,
  projectTarget: { passed: boolean } | null = null,
  informational: Informational = {},
): { outcome: RuleOutcome; decidedBy: DecidingRule } {
  let project: RuleOutcome = deltaOutcome;
  let projectRule: DecidingRule = 'delta';
  if (projectTarget !== null && !projectTarget.passed && deltaOutcome !== 'fail') {
    project = 'fail';
    projectRule = 'target';
  }
  if (informational.project && project === 'fail') project = 'warn';
  const patchOutcome: RuleOutcome =
    patch === null || patch.passed ? 'pass' : informational.patch ? 'warn' : 'fail';
  if (RANK[patchOutcome] > RANK[project]) return { outcome: patchOutcome, decidedBy: 'patch' };
  return { outcome: project, decidedBy: projectRule };
}
