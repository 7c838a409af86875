import type { DecidingRule } from '../storage/store.js';
import { evaluateGate, type GateResult } from './gate-evaluation.js';
import {
  decideOutcome,
  evaluatePatch,
  evaluateProjectTarget,
  type RuleOutcome,
} from './patch-rule.js';

/** A run's figures: its coverage and, when it measured one, its patch's line counts. */
export interface RunFigures {
  coverage: number;
  patch: { covered: number; coverable: number } | null;
}

/** The rules a run is judged by, as it sent them. */
export interface RunRules {
  warnThreshold: number;
  failThreshold: number;
  /** The project's absolute floor, or null. */
  projectTarget: number | null;
  projectInformational: boolean;
  patchInformational: boolean;
}

/**
 * Every rule of the gate over one run's figures: the delta thresholds against the baseline's
 * coverage, the project target, and the patch rule at `patchTarget` (none without one), then
 * the outcome they decide together. One run posted alone and a commit merged from parts are
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
  const verdict = decideOutcome(gate.outcome, patch, projectTarget, {
    project: rules.projectInformational,
    patch: rules.patchInformational,
  });
  return { gate, verdict };
}
