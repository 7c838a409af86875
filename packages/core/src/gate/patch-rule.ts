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

/** Branches taken at least once of the branches listed, and the target they are judged with. */
export interface BranchRuleInput {
  covered: number;
  /** Branches listed; 0 when the lines judged have none. */
  total: number;
  /** Percent, 0..100. */
  target: number;
}

/**
 * A branch rule (the project's, on the run's branches; the patch's, on its changed lines'):
 * judged as the patch rule judges lines, the percent truncated to hundredths against the
 * target truncated likewise; no branch listed passes, as there is none to test.
 */
export function evaluateBranchRule(input: BranchRuleInput): PatchResult {
  return evaluatePatch({ covered: input.covered, coverable: input.total, target: input.target });
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
  /** The delta thresholds, the project target and the project branch rule. */
  project?: boolean;
  /** The patch rule and the patch branch rule. */
  patch?: boolean;
}

/** The branch rules' judgements, each null (or absent) when the run is not judged by it. */
export interface BranchJudgements {
  /** The project branch rule: the run's branch percent against its floor. */
  project?: { passed: boolean } | null;
  /** The patch branch rule: the changed lines' branch percent against its target. */
  patch?: { passed: boolean } | null;
}

/**
 * The outcome of the gate's rules: `pending` is a commit report's and `skipped` a commit's
 * with nothing to measure, never a rule's.
 */
export type RuleOutcome = Exclude<Outcome, 'pending' | 'skipped'>;

const RANK: Readonly<Record<RuleOutcome, number>> = { pass: 0, warn: 1, fail: 2 };

/**
 * The outcome of a run from the delta thresholds' outcome, the project target, the patch
 * rule and the branch rules. The project target, then the project branch rule, turn a `pass`
 * or `warn` into a `fail`; the patch rule, then the patch branch rule, can only make the
 * outcome worse. An informational rule's `fail` counts as a `warn` (the project's flag covers
 * the project branch rule, the patch's the patch branch rule). The rule named is the one whose
 * outcome it is: the delta thresholds when they already judged that badly (they come first),
 * else the project target, else the project branch rule, else the patch rule, else the patch
 * branch rule.
 */
export function decideOutcome(
  deltaOutcome: RuleOutcome,
  patch: PatchResult | null,
  projectTarget: { passed: boolean } | null = null,
  informational: Informational = {},
  branches: BranchJudgements = {},
): { outcome: RuleOutcome; decidedBy: DecidingRule } {
  let project: RuleOutcome = deltaOutcome;
  let projectRule: DecidingRule = 'delta';
  if (deltaOutcome !== 'fail') {
    if (projectTarget != null && !projectTarget.passed) {
      project = 'fail';
      projectRule = 'target';
    } else if (branches.project != null && !branches.project.passed) {
      project = 'fail';
      projectRule = 'branches';
    }
  }
  if (informational.project && project === 'fail') project = 'warn';
  const patchRule: DecidingRule | null =
    patch !== null && !patch.passed
      ? 'patch'
      : branches.patch != null && !branches.patch.passed
        ? 'patch_branches'
        : null;
  const patchOutcome: RuleOutcome =
    patchRule === null ? 'pass' : informational.patch ? 'warn' : 'fail';
  if (patchRule !== null && RANK[patchOutcome] > RANK[project]) {
    return { outcome: patchOutcome, decidedBy: patchRule };
  }
  return { outcome: project, decidedBy: projectRule };
}
