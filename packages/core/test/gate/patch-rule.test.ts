import { describe, expect, it } from 'vitest';
import { DEFAULT_PATCH_TARGET, decideOutcome, evaluatePatch } from '../../src/gate/patch-rule.js';

describe('evaluatePatch', () => {
  it('passes a patch without a coverable line, whatever the target, with no percentage', () => {
    expect(evaluatePatch({ covered: 0, coverable: 0, target: 100 })).toEqual({
      percent: null,
      passed: true,
    });
  });

  it('truncates the percentage to hundredths: 2 of 3 is 66.66, 1 of 3 is 33.33', () => {
    expect(evaluatePatch({ covered: 2, coverable: 3, target: 0 }).percent).toBe(66.66);
    expect(evaluatePatch({ covered: 1, coverable: 3, target: 0 }).percent).toBe(33.33);
    expect(evaluatePatch({ covered: 9999, coverable: 10000, target: 0 }).percent).toBe(99.99);
    expect(evaluatePatch({ covered: 3, coverable: 3, target: 0 }).percent).toBe(100);
    expect(evaluatePatch({ covered: 0, coverable: 7, target: 0 }).percent).toBe(0);
  });

  it('fails strictly below the target and passes at it', () => {
    expect(evaluatePatch({ covered: 4, coverable: 5, target: 80 }).passed).toBe(true);
    expect(evaluatePatch({ covered: 79, coverable: 100, target: 80 }).passed).toBe(false);
    expect(evaluatePatch({ covered: 7999, coverable: 10000, target: 80 }).passed).toBe(false);
    expect(evaluatePatch({ covered: 0, coverable: 1, target: 0 }).passed).toBe(true);
  });

  it('compares with the target truncated to hundredths, as it is shown', () => {
    // 66.66 against 66.669 (shown 66.66): passes; against 66.67: fails.
    expect(evaluatePatch({ covered: 2, coverable: 3, target: 66.669 }).passed).toBe(true);
    expect(evaluatePatch({ covered: 2, coverable: 3, target: 66.67 }).passed).toBe(false);
  });

  it('counts exactly for a billion lines', () => {
    expect(
      evaluatePatch({ covered: 999_999_999, coverable: 1_000_000_000, target: 99.99 }),
    ).toEqual({ percent: 99.99, passed: true });
  });

  it('defaults to 80, the coverage-on-new-code bar of SonarQube', () => {
    expect(DEFAULT_PATCH_TARGET).toBe(80);
  });
});

describe('decideOutcome', () => {
  const failed = { percent: 10, passed: false };
  const passed = { percent: 90, passed: true };

  it('fails a pass or a warn whose patch fails, naming the patch rule', () => {
    expect(decideOutcome('pass', failed)).toEqual({ outcome: 'fail', decidedBy: 'patch' });
    expect(decideOutcome('warn', failed)).toEqual({ outcome: 'fail', decidedBy: 'patch' });
  });

  it('keeps the delta outcome when the patch passes or is absent, naming the thresholds', () => {
    expect(decideOutcome('pass', passed)).toEqual({ outcome: 'pass', decidedBy: 'delta' });
    expect(decideOutcome('warn', passed)).toEqual({ outcome: 'warn', decidedBy: 'delta' });
    expect(decideOutcome('warn', null)).toEqual({ outcome: 'warn', decidedBy: 'delta' });
  });

  it('fails a pass or a warn below the project target, naming it; the thresholds come first', () => {
    const below = { passed: false };
    expect(decideOutcome('pass', null, below)).toEqual({ outcome: 'fail', decidedBy: 'target' });
    expect(decideOutcome('warn', passed, below)).toEqual({ outcome: 'fail', decidedBy: 'target' });
    expect(decideOutcome('fail', null, below)).toEqual({ outcome: 'fail', decidedBy: 'delta' });
    expect(decideOutcome('pass', failed, below)).toEqual({ outcome: 'fail', decidedBy: 'target' });
    expect(decideOutcome('pass', null, { passed: true })).toEqual({
      outcome: 'pass',
      decidedBy: 'delta',
    });
  });

  it('an informational rule warns instead of failing', () => {
    const below = { passed: false };
    const project = { project: true };
    expect(decideOutcome('pass', null, below, project)).toEqual({
      outcome: 'warn',
      decidedBy: 'target',
    });
    expect(decideOutcome('fail', null, null, project)).toEqual({
      outcome: 'warn',
      decidedBy: 'delta',
    });
    expect(decideOutcome('pass', failed, null, { patch: true })).toEqual({
      outcome: 'warn',
      decidedBy: 'patch',
    });
    // An informational project rule does not soften the patch rule.
    expect(decideOutcome('fail', failed, null, project)).toEqual({
      outcome: 'fail',
      decidedBy: 'patch',
    });
  });

  it('names the thresholds when they fail the run themselves, whatever the patch', () => {
    expect(decideOutcome('fail', failed)).toEqual({ outcome: 'fail', decidedBy: 'delta' });
    expect(decideOutcome('fail', passed)).toEqual({ outcome: 'fail', decidedBy: 'delta' });
  });
});
