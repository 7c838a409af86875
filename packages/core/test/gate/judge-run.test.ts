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
});
