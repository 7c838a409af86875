import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateGate, type GateInput } from '../../src/gate/gate-evaluation.js';
import type { Outcome } from '../../src/storage/store.js';

const DELTA_SHAPE = /^(\+\d+\.\d{2}|-\d+\.\d{2}|0\.00)$/;
const DEFAULTS = { warnThreshold: 0.5, failThreshold: 1.0 };
const SEVERITY: Record<Outcome, number> = { pass: 0, warn: 1, fail: 2, pending: 3, skipped: 4 };

function gate(coverage: number, baseline: number | null, thresholds = DEFAULTS) {
  return evaluateGate({ coverage, baseline, ...thresholds });
}

function parseDelta(delta: string): number {
  const match = /^([+-]?)(\d+)\.(\d{2})$/.exec(delta);
  if (match === null) {
    throw new Error(`not a delta: ${delta}`);
  }
  const magnitude = Number(match[2]) * 100 + Number(match[3]);
  return match[1] === '-' ? -magnitude : magnitude;
}

describe('evaluateGate', () => {
  it('passes with delta 0.00 when there is no baseline, even at 0 % coverage', () => {
    expect(gate(0, null)).toEqual({
      outcome: 'pass',
      delta: '0.00',
      deltaHundredths: 0,
      coverage: 0,
      baseline: null,
    });
    expect(gate(84.5, null)).toEqual({
      outcome: 'pass',
      delta: '0.00',
      deltaHundredths: 0,
      coverage: 84.5,
      baseline: null,
    });
  });

  it('reports 80.1 against 80.0 as exactly +0.10, without float drift', () => {
    expect(gate(80.1, 80.0)).toEqual({
      outcome: 'pass',
      delta: '+0.10',
      deltaHundredths: 10,
      coverage: 80.1,
      baseline: 80,
    });
  });

  it('signs a rise with + and a drop with -', () => {
    expect(gate(85, 84.5).delta).toBe('+0.50');
    expect(gate(84.5, 85).delta).toBe('-0.50');
    expect(gate(84.5, 85).deltaHundredths).toBe(-50);
  });

  it('prints an unchanged coverage as 0.00, not -0.00', () => {
    expect(gate(72.3, 72.3).delta).toBe('0.00');
    expect(gate(72.301, 72.3).delta).toBe('0.00');
    expect(gate(72.309, 72.3).delta).toBe('0.00');
    expect(gate(72.299, 72.3).delta).toBe('-0.01');
  });

  it('truncates the coverage to two decimals, never rounding it up', () => {
    expect(gate(84.125, null).coverage).toBe(84.12);
    expect(gate(99.936, null).coverage).toBe(99.93);
    expect(gate(1.005, null).coverage).toBe(1);
    expect(gate(84.125, 84.12).delta).toBe('0.00');
    // 0.29 * 100 is 28.999999999999996 in binary: floored it would be 0.28.
    expect(gate(0.29, null).coverage).toBe(0.29);
  });

  it('truncates the baseline too, so a drop is never hidden by rounding', () => {
    expect(gate(80, 80.009).delta).toBe('0.00');
    expect(gate(80, 80.009).baseline).toBe(80);
    expect(gate(80, 99.936).baseline).toBe(99.93);
    expect(gate(79.996, 80).delta).toBe('-0.01');
    expect(gate(78.999, 80)).toEqual({
      outcome: 'fail',
      delta: '-1.01',
      deltaHundredths: -101,
      coverage: 78.99,
      baseline: 80,
    });
  });

  it('warns, not fails, on a drop of exactly the fail threshold', () => {
    expect(gate(79, 80).outcome).toBe('warn');
    expect(gate(78.99, 80).outcome).toBe('fail');
  });

  it('passes on a drop of exactly the warn threshold and warns one hundredth beyond', () => {
    expect(gate(79.5, 80).outcome).toBe('pass');
    expect(gate(79.49, 80).outcome).toBe('warn');
  });

  it('compares thresholds as the decimals they were written as', () => {
    const thresholds = { warnThreshold: 0.29, failThreshold: 0.333 };
    // 0.29 * 100 is 28.999999999999996 in binary: a drop of 0.29 must still not cross it.
    expect(gate(50, 50.29, thresholds).outcome).toBe('pass');
    expect(gate(50, 50.3, thresholds).outcome).toBe('warn');
    expect(gate(50, 50.33, thresholds).outcome).toBe('warn');
    expect(gate(50, 50.34, thresholds).outcome).toBe('fail');
  });

  it('fails any drop when both thresholds are zero, and passes no change', () => {
    const strict = { warnThreshold: 0, failThreshold: 0 };
    expect(gate(80, 80.01, strict).outcome).toBe('fail');
    expect(gate(80, 80, strict).outcome).toBe('pass');
  });

  it('goes straight from pass to fail when the thresholds are equal', () => {
    const equal = { warnThreshold: 1, failThreshold: 1 };
    expect(gate(79, 80, equal).outcome).toBe('pass');
    expect(gate(78.99, 80, equal).outcome).toBe('fail');
  });

  it('accepts the extremes of the percentage range', () => {
    expect(gate(0, 100)).toEqual({
      outcome: 'fail',
      delta: '-100.00',
      deltaHundredths: -10_000,
      coverage: 0,
      baseline: 100,
    });
    expect(gate(100, 0).delta).toBe('+100.00');
  });

  it('rejects a coverage or baseline outside 0..100, non-finite or not a number', () => {
    for (const bad of [-0.01, 100.01, Number.NaN, Infinity, -Infinity, '80']) {
      expect(() => gate(bad as number, 80)).toThrow(
        new RangeError(`coverage must be a finite percentage in 0..100, got ${bad}`),
      );
      expect(() => gate(80, bad as number)).toThrow(
        new RangeError(`baseline must be a finite percentage in 0..100, got ${bad}`),
      );
    }
  });

  it('rejects negative or non-finite thresholds and a warn threshold above the fail one', () => {
    const bad: Array<[Pick<GateInput, 'warnThreshold' | 'failThreshold'>, string]> = [
      [
        { warnThreshold: -0.1, failThreshold: 1 },
        'warnThreshold must be a finite number >= 0, got -0.1',
      ],
      [
        { warnThreshold: 0.5, failThreshold: -1 },
        'failThreshold must be a finite number >= 0, got -1',
      ],
      [
        { warnThreshold: Number.NaN, failThreshold: 1 },
        'warnThreshold must be a finite number >= 0, got NaN',
      ],
      [
        { warnThreshold: 0.5, failThreshold: Infinity },
        'failThreshold must be a finite number >= 0, got Infinity',
      ],
      [
        { warnThreshold: 1.5, failThreshold: 1 },
        'warnThreshold (1.5) must not exceed failThreshold (1)',
      ],
    ];
    for (const [thresholds, message] of bad) {
      expect(() => gate(80, 80, thresholds)).toThrow(new RangeError(message));
    }
  });
});

describe('evaluateGate properties', () => {
  const hundredths = fc.integer({ min: 0, max: 10_000 });

  it('gives a delta that reads back as exactly coverage minus baseline in hundredths', () => {
    fc.assert(
      fc.property(hundredths, hundredths, (coverage, baseline) => {
        const result = gate(coverage / 100, baseline / 100);
        expect(result.delta).toMatch(DELTA_SHAPE);
        expect(result.delta).not.toBe('-0.00');
        expect(parseDelta(result.delta)).toBe(coverage - baseline);
        expect(result.deltaHundredths).toBe(coverage - baseline);
        expect(result.coverage).toBe(coverage / 100);
        expect(result.baseline).toBe(baseline / 100);
      }),
    );
  });

  it('signs the delta like the difference', () => {
    fc.assert(
      fc.property(hundredths, hundredths, (coverage, baseline) => {
        const { delta } = gate(coverage / 100, baseline / 100);
        const expectedSign = coverage > baseline ? '+' : coverage < baseline ? '-' : '0';
        expect(delta[0]).toBe(expectedSign);
      }),
    );
  });

  it('classifies by integer comparison against two-decimal thresholds', () => {
    fc.assert(
      fc.property(
        hundredths,
        hundredths,
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 500 }),
        (coverage, baseline, a, b) => {
          const [warn, fail] = a <= b ? [a, b] : [b, a];
          const { outcome } = gate(coverage / 100, baseline / 100, {
            warnThreshold: warn / 100,
            failThreshold: fail / 100,
          });
          const delta = coverage - baseline;
          const expected = delta < -fail ? 'fail' : delta < -warn ? 'warn' : 'pass';
          expect(outcome).toBe(expected);
        },
      ),
    );
  });

  it('never judges a larger delta more severely than a smaller one', () => {
    fc.assert(
      fc.property(
        fc.tuple(hundredths, hundredths),
        fc.tuple(hundredths, hundredths),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 2_000 }),
        ([c1, b1], [c2, b2], a, b) => {
          const thresholds = {
            warnThreshold: Math.min(a, b) / 1000,
            failThreshold: Math.max(a, b) / 1000,
          };
          const first = gate(c1 / 100, b1 / 100, thresholds);
          const second = gate(c2 / 100, b2 / 100, thresholds);
          const [smaller, larger] =
            first.deltaHundredths <= second.deltaHundredths ? [first, second] : [second, first];
          expect(SEVERITY[smaller.outcome]).toBeGreaterThanOrEqual(SEVERITY[larger.outcome]);
        },
      ),
    );
  });
});
