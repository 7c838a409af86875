import { describe, expect, it } from 'vitest';
import { judgeRun, type RunRules } from '../../src/gate/judge-run.js';

const RULES: RunRules = {
  warnThreshold: 1,
  failThreshold: 5,
  projectTarget: null,
  projectInformational: false,
  patchInformational: false,
};

describe('judgeRun', () => {
  it('judges the delta against the baseline, with the figures truncated', () => {
    expect(judgeRun({ coverage: 80.129, patch: null }, RULES, 82.5, null)).toEqual({
      gate: {
        outcome: 'warn',
        delta: '-2.38',
        deltaHundredths: -238,
        coverage: 80.12,
        baseline: 82.5,
      },
      verdict: { outcome: 'warn', decidedBy: 'delta' },
    });
    expect(judgeRun({ coverage: 70, patch: null }, RULES, null, null).verdict).toEqual({
      outcome: 'pass',
      decidedBy: 'delta',
    });
  });

  it('applies the patch rule only with a target, at that target', () => {
    const patch = { covered: 7, coverable: 13 };
    expect(judgeRun({ coverage: 90, patch }, RULES, 90, null).verdict).toEqual({
      outcome: 'pass',
      decidedBy: 'delta',
    });
    expect(judgeRun({ coverage: 90, patch }, RULES, 90, 80).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'patch',
    });
    expect(judgeRun({ coverage: 90, patch }, RULES, 90, 53.84).verdict).toEqual({
      outcome: 'pass',
      decidedBy: 'delta',
    });
    expect(
      judgeRun({ coverage: 90, patch }, { ...RULES, patchInformational: true }, 90, 80).verdict,
    ).toEqual({ outcome: 'warn', decidedBy: 'patch' });
  });

  it('applies the project target to the coverage, informational when the run says so', () => {
    const withTarget = { ...RULES, projectTarget: 85.5 };
    expect(judgeRun({ coverage: 85.5, patch: null }, withTarget, null, null).verdict).toEqual({
      outcome: 'pass',
      decidedBy: 'delta',
    });
    expect(judgeRun({ coverage: 85.49, patch: null }, withTarget, null, null).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'target',
    });
    expect(
      judgeRun(
        { coverage: 85.49, patch: null },
        { ...withTarget, projectInformational: true },
        null,
        null,
      ).verdict,
    ).toEqual({ outcome: 'warn', decidedBy: 'target' });
  });

  it('applies the project branch rule to the run’s branches, at its floor, after the project target', () => {
    const figures = { coverage: 90, patch: null, branches: { covered: 11, total: 18 } };
    const rules = { ...RULES, branchTarget: 70 };
    // 61.11 % of branches, below 70 %.
    expect(judgeRun(figures, rules, 90, null).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'branches',
    });
    expect(judgeRun(figures, { ...rules, branchTarget: 61.11 }, 90, null).verdict).toEqual({
      outcome: 'pass',
      decidedBy: 'delta',
    });
    // The project target is named first when both fail; the delta first when it failed.
    expect(judgeRun(figures, { ...rules, projectTarget: 95 }, 90, null).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'target',
    });
    expect(judgeRun(figures, rules, 99, null).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'delta',
    });
    expect(judgeRun(figures, { ...rules, projectInformational: true }, 90, null).verdict).toEqual({
      outcome: 'warn',
      decidedBy: 'branches',
    });
    // No branch listed: nothing to test, the rule passes.
    expect(
      judgeRun({ ...figures, branches: { covered: 0, total: 0 } }, rules, 90, null).verdict,
    ).toEqual({ outcome: 'pass', decidedBy: 'delta' });
  });

  it('applies the patch branch rule to the changed lines’ branches, after the patch rule', () => {
    const figures = {
      coverage: 90,
      patch: { covered: 9, coverable: 10 },
      patchBranches: { covered: 1, total: 4 },
    };
    const rules = { ...RULES, patchBranchTarget: 50 };
    expect(judgeRun(figures, rules, 90, 80).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'patch_branches',
    });
    expect(judgeRun(figures, rules, 90, 95).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'patch',
    });
    expect(judgeRun(figures, { ...rules, patchBranchTarget: 25 }, 90, 80).verdict).toEqual({
      outcome: 'pass',
      decidedBy: 'delta',
    });
    // Informational patch covers it; the project's flag does not.
    expect(judgeRun(figures, { ...rules, patchInformational: true }, 90, 80).verdict).toEqual({
      outcome: 'warn',
      decidedBy: 'patch_branches',
    });
    expect(judgeRun(figures, { ...rules, projectInformational: true }, 90, 80).verdict).toEqual({
      outcome: 'fail',
      decidedBy: 'patch_branches',
    });
    // A failed project branch rule outranks a warned patch branch rule.
    expect(
      judgeRun(
        { ...figures, branches: { covered: 1, total: 10 } },
        { ...rules, branchTarget: 50, patchInformational: true },
        90,
        80,
      ).verdict,
    ).toEqual({ outcome: 'fail', decidedBy: 'branches' });
  });
});
