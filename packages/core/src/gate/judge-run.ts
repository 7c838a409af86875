import type { DecidingRule } from '../storage/store.js';
import { evaluateGate, type GateResult } from './gate-evaluation.js';
import {
  decideOutcome,
  evaluateBranchRule,
  evaluatePatch,
  evaluateProjectTarget,
  type RuleOutcome,
} from './patch-rule.js';

/** Branches taken at least once of the branches listed. */
export interface BranchFigures {
  covered: number;
  total: number;
}

/**
 * A run's figures: its coverage and, when it measured one, its patch's line counts; its
 * branch counts and its patch's, when its reports carried branch data (a commit merged from
 * parts has none: parts do not merge branches).
 */
export interface RunFigures {
  coverage: number;
  patch: { covered: number; coverable: number } | null;
  branches?: BranchFigures | null;
  patchBranches?: BranchFigures | null;
}

/** The rules a run is judged by, as it sent them. */
export interface RunRules {
  warnThreshold: number;
  failThreshold: number;
  /** The project's absolute floor, or null. */
  projectTarget: number | null;
  projectInformational: boolean;
  patchInformational: boolean;
  /** The project branch rule's floor on the run's branch percent, or null (or absent). */
  branchTarget?: number | null;
  /** The patch branch rule's target on the changed lines' branch percent, or null (or absent). */
  patchBranchTarget?: number | null;
}

/**
 * Every rule of the gate over one run's figures: the delta thresholds against the baseline's
 * coverage, the project target, the patch rule at `patchTarget` (none without one) and the
 * branch rules the run sent targets for, then the outcome they decide together. A branch
 * target without the branch counts it reads judges nothing: the ingest refuses that run first. One run posted alone and a commit merged from parts are
 * judged by this one function.
 */
export function judgeRun(
  figures: RunFigures,
  rules: RunRules,
  baselineCoverage: number | null,
  patchTarget: number | null,
): { gate: GateResult; verdict: { outcome: RuleOutcome; decidedBy: DecidingRule } } {
  const gate = evaluateGate({
    coverage: figures.coverage,
    baseline: baselineCoverage,
    warnThreshold: rules.warnThreshold,
    failThreshold: rules.failThreshold,
  });
  const patch =
    figures.patch === null || patchTarget === null
      ? null
      : evaluatePatch({ ...figures.patch, target: patchTarget });
  const projectTarget =
    rules.projectTarget === null
      ? null
      : evaluateProjectTarget({ coverage: figures.coverage, target: rules.projectTarget });
  const verdict = decideOutcome(
    gate.outcome,
    patch,
    projectTarget,
    { project: rules.projectInformational, patch: rules.patchInformational },
    {
      project: branchRule(figures.branches, rules.branchTarget),
      patch: branchRule(figures.patchBranches, rules.patchBranchTarget),
    },
  );
  return { gate, verdict };
}

function branchRule(
  branches: BranchFigures | null | undefined,
  target: number | null | undefined,
): { passed: boolean } | null {
  if (branches == null || target == null) return null;
  return evaluateBranchRule({ ...branches, target });
}
