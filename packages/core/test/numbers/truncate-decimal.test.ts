import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type PercentPlaces,
  truncateDecimal,
  truncateToHundredths,
} from '../../src/numbers/truncate-decimal.js';

/** `hundredths` written as a decimal with two places: 9993 -> `99.93`, -1 -> `-0.01`. */
function twoPlaces(hundredths: number): string {
  const digits = String(Math.abs(hundredths)).padStart(3, '0');
  return `${hundredths < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

describe('truncateToHundredths', () => {
  it('cuts the digits beyond the second decimal, never rounding up', () => {
    expect(truncateToHundredths(99.936)).toBe(9993);
    expect(truncateToHundredths(79.996)).toBe(7999);
    expect(truncateToHundredths(84.125)).toBe(8412);
    expect(truncateToHundredths(99.999999)).toBe(9999);
    expect(truncateToHundredths(1.0049)).toBe(100);
  });

  it('cuts the decimal as written, not its binary approximation', () => {
    // Each is slightly below its decimal in binary: Math.floor(v * 100) loses a hundredth.
    for (const [value, hundredths] of [
      [0.29, 29],
      [1.13, 113],
      [4.35, 435],
      [9.95, 995],
      [80.1, 8010],
      [1.005, 100],
    ] as const) {
      expect(truncateToHundredths(value), String(value)).toBe(hundredths);
    }
    expect(Math.floor(0.29 * 100)).toBe(28);
  });

  it('truncates towards zero below zero, and returns 0 rather than -0', () => {
    expect(truncateToHundredths(-0.019)).toBe(-1);
    expect(truncateToHundredths(-84.129)).toBe(-8412);
    expect(Object.is(truncateToHundredths(-0.004), 0)).toBe(true);
    expect(Object.is(truncateToHundredths(-0), 0)).toBe(true);
    expect(truncateToHundredths(1e-7)).toBe(0);
    expect(truncateToHundredths(0.0000123)).toBe(0);
    expect(truncateToHundredths(0.0123)).toBe(1);
    expect(truncateToHundredths(Number.MIN_VALUE)).toBe(0);
  });

  it('keeps whole numbers and values that already have two decimals', () => {
    expect(truncateToHundredths(100)).toBe(10_000);
    expect(truncateToHundredths(0)).toBe(0);
    expect(truncateToHundredths(1e13)).toBe(1e15);
    expect(truncateToHundredths(123456.789)).toBe(12345678);
    expect(truncateToHundredths(-7)).toBe(-700);
  });

  it('rejects non-finite numbers and magnitudes too large to count exactly', () => {
    for (const bad of [Number.NaN, Infinity, -Infinity]) {
      expect(() => truncateToHundredths(bad)).toThrow(
        new RangeError(`expected a finite number, got ${bad}`),
      );
    }
    for (const bad of [1e14, -1e21]) {
      expect(() => truncateToHundredths(bad)).toThrow(
        new RangeError(`${bad} is too large to count in hundredths exactly`),
      );
    }
  });

  it('returns k for k / 100, for any k up to a trillion', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (hundredths) => {
        expect(truncateToHundredths(hundredths / 100)).toBe(hundredths === 0 ? 0 : hundredths);
      }),
    );
  });

  it('drops any further digits of a decimal, whatever they are', () => {
    // Up to 15 significant digits, so the decimal survives the trip through a double.
    fc.assert(
      fc.property(
        fc.integer({ min: -99_999, max: 99_999 }),
        fc.stringMatching(/^[0-9]{1,8}$/),
        (hundredths, tail) => {
          const value = Number(`${twoPlaces(hundredths)}${tail}`);
          expect(truncateToHundredths(value)).toBe(hundredths === 0 ? 0 : hundredths);
        },
      ),
    );
  });

  it('matches the first two decimals of what String() prints, for any percentage', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 100, noNaN: true }), (value) => {
        const written = String(value);
        // Below 1e-6 String() uses an exponent: such a value has no whole hundredth.
        const [whole = '0', fraction = ''] = written.includes('e') ? [] : written.split('.');
        expect(twoPlaces(truncateToHundredths(value))).toBe(
          `${whole}.${fraction.padEnd(2, '0').slice(0, 2)}`,
        );
      }),
    );
  });
});

describe('truncateDecimal', () => {
  it('shows two decimals by default, truncated', () => {
    expect(truncateDecimal(99.936)).toBe('99.93');
    expect(truncateDecimal(84.1)).toBe('84.10');
    expect(truncateDecimal(100)).toBe('100.00');
    expect(truncateDecimal(0)).toBe('0.00');
    expect(truncateDecimal(0.05)).toBe('0.05');
  });

  it('shows one or no decimal, floored: 79.996 % is 79 %, never a green-looking 80 %', () => {
    expect(truncateDecimal(79.996, 0)).toBe('79');
    expect(truncateDecimal(79.99, 1)).toBe('79.9');
    expect(truncateDecimal(84.19, 1)).toBe('84.1');
    expect(truncateDecimal(99.5, 0)).toBe('99');
    expect(truncateDecimal(0.99, 0)).toBe('0');
    expect(truncateDecimal(100, 0)).toBe('100');
    expect(truncateDecimal(7, 1)).toBe('7.0');
  });

  it('signs a negative value only when what is shown is not zero', () => {
    expect(truncateDecimal(-1.239)).toBe('-1.23');
    expect(truncateDecimal(-0.019)).toBe('-0.01');
    expect(truncateDecimal(-0.019, 1)).toBe('0.0');
    expect(truncateDecimal(-0.5, 0)).toBe('0');
    expect(truncateDecimal(-1.5, 0)).toBe('-1');
    expect(truncateDecimal(-0.004)).toBe('0.00');
  });

  it('never uses an exponent', () => {
    expect(truncateDecimal(1e-7)).toBe('0.00');
    expect(truncateDecimal(1e13, 1)).toBe('10000000000000.0');
  });

  it('shows the value cut at the place, as text, for any percentage and places', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.stringMatching(/^[0-9]{0,6}$/),
        fc.constantFrom<PercentPlaces>(0, 1, 2),
        (hundredths, tail, places) => {
          const written = `${twoPlaces(hundredths)}${tail}`;
          const [whole, fraction = ''] = written.split('.');
          const expected = places === 0 ? whole : `${whole}.${fraction.slice(0, places)}`;
          expect(truncateDecimal(Number(written), places)).toBe(expected);
          expect(Number(truncateDecimal(Number(written), places))).toBeLessThanOrEqual(
            Number(written),
          );
        },
      ),
    );
  });
});
