import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDelta } from '../../src/gate/delta-format.js';

const DELTA_SHAPE = /^(\+\d+\.\d{2}|-\d+\.\d{2}|0\.00)$/;

describe('formatDelta', () => {
  it('prints a rise with a plus sign and two decimals', () => {
    expect(formatDelta(125)).toBe('+1.25');
    expect(formatDelta(5)).toBe('+0.05');
    expect(formatDelta(100)).toBe('+1.00');
    expect(formatDelta(10_000)).toBe('+100.00');
  });

  it('prints a drop with a minus sign and a leading zero', () => {
    expect(formatDelta(-40)).toBe('-0.40');
    expect(formatDelta(-1)).toBe('-0.01');
    expect(formatDelta(-10_000)).toBe('-100.00');
  });

  it('prints zero and negative zero as 0.00, never -0.00 or +0.00', () => {
    expect(formatDelta(0)).toBe('0.00');
    expect(formatDelta(-0)).toBe('0.00');
  });

  it('prints the largest safe integers in full, without an exponent', () => {
    expect(formatDelta(Number.MAX_SAFE_INTEGER)).toBe('+90071992547409.91');
    expect(formatDelta(Number.MIN_SAFE_INTEGER)).toBe('-90071992547409.91');
    expect(formatDelta(1e15)).toBe('+10000000000000.00');
  });

  it('rejects fractions, non-finite numbers, unsafe integers and non-numbers', () => {
    for (const bad of [1.5, -0.1, Number.NaN, Infinity, -Infinity, 2 ** 53, '125']) {
      expect(() => formatDelta(bad as number)).toThrow(
        new RangeError(`delta must be a safe integer of hundredths, got ${bad}`),
      );
    }
  });

  it('always has the +x.xx, -x.xx or 0.00 shape and reads back as the same number of hundredths', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (hundredths) => {
        const text = formatDelta(hundredths);
        expect(text).toMatch(DELTA_SHAPE);
        expect(Number(text.replace('.', ''))).toBe(hundredths);
      }),
    );
  });
});
