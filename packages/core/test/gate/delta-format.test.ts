import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDelta, roundToHundredths } from '../../src/gate/delta-format.js';

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
      expect(() => formatDelta(bad as number)).toThrow(RangeError);
    }
  });

  it('always has the spec shape and reads back as the same number of hundredths', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (hundredths) => {
        const text = formatDelta(hundredths);
        expect(text).toMatch(DELTA_SHAPE);
        expect(Number(text.replace('.', ''))).toBe(hundredths);
      }),
    );
  });
});

describe('roundToHundredths', () => {
  it('rounds the decimal as written, not its binary approximation', () => {
    expect(roundToHundredths(1.005)).toBe(101);
    expect(roundToHundredths(84.125)).toBe(8413);
    expect(roundToHundredths(2.675)).toBe(268);
    expect(roundToHundredths(1.255)).toBe(126);
    expect(roundToHundredths(0.045)).toBe(5);
  });

  it('rounds halves away from zero on both sides', () => {
    expect(roundToHundredths(-0.005)).toBe(-1);
    expect(roundToHundredths(0.005)).toBe(1);
    expect(roundToHundredths(-84.125)).toBe(-8413);
  });

  it('rounds below the half towards zero, and returns 0 rather than -0', () => {
    expect(roundToHundredths(1.0049)).toBe(100);
    expect(roundToHundredths(0.004)).toBe(0);
    expect(Object.is(roundToHundredths(-0.004), 0)).toBe(true);
    expect(Object.is(roundToHundredths(-0), 0)).toBe(true);
    expect(roundToHundredths(1e-7)).toBe(0);
    expect(roundToHundredths(Number.MIN_VALUE)).toBe(0);
  });

  it('keeps values that already have two decimals', () => {
    expect(roundToHundredths(80.1)).toBe(8010);
    expect(roundToHundredths(100)).toBe(10_000);
    expect(roundToHundredths(0)).toBe(0);
  });

  it('rejects non-finite numbers and magnitudes too large to count exactly', () => {
    for (const bad of [Number.NaN, Infinity, -Infinity, 1e14, -1e21]) {
      expect(() => roundToHundredths(bad)).toThrow(RangeError);
    }
  });

  it('rounds any decimal with a third digit by that digit, half away from zero', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
        fc.integer({ min: 0, max: 9 }),
        fc.stringMatching(/^[0-9]{0,3}$/),
        (hundredths, thirdDigit, tail) => {
          const magnitude = Math.abs(hundredths);
          const whole = Math.floor(magnitude / 100);
          const cents = String(magnitude % 100).padStart(2, '0');
          const sign = hundredths < 0 ? '-' : '';
          const value = Number(`${sign}${whole}.${cents}${thirdDigit}${tail}`);
          const roundedMagnitude = magnitude + (thirdDigit >= 5 ? 1 : 0);
          const expected = hundredths < 0 ? -roundedMagnitude : roundedMagnitude;
          expect(roundToHundredths(value)).toBe(expected === 0 ? 0 : expected);
        },
      ),
    );
  });

  it('returns k for k / 100, for any k up to a trillion', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (hundredths) => {
        expect(roundToHundredths(hundredths / 100)).toBe(hundredths === 0 ? 0 : hundredths);
      }),
    );
  });
});
