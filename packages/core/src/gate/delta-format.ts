import { shiftToHundredths } from './decimal-hundredths.js';

/**
 * Formats a coverage delta given in integer hundredths of a percentage point:
 * `125` -> `+1.25`, `-40` -> `-0.40`, `0` (and `-0`) -> `0.00`.
 *
 * The sign is always present except for zero, so `-0.00` never appears; there are always two
 * decimals and never an exponent, whatever the magnitude.
 *
 * @throws RangeError when `hundredths` is not a safe integer.
 */
export function formatDelta(hundredths: number): string {
  if (!Number.isSafeInteger(hundredths)) {
    throw new RangeError(`delta must be a safe integer of hundredths, got ${hundredths}`);
  }
  if (hundredths === 0) {
    return '0.00';
  }
  // Safe integers print without an exponent, so the text can be split at two digits.
  const digits = String(Math.abs(hundredths)).padStart(3, '0');
  const sign = hundredths > 0 ? '+' : '-';
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/**
 * Converts a percentage to integer hundredths, rounding half away from zero on the decimal
 * the number was written as: `84.125` -> `8413`, `1.005` -> `101`, `-0.005` -> `-1`.
 *
 * `Math.round(value * 100)` and `Number(value.toFixed(2))` both round the binary value,
 * which for `1.005` is slightly below the half and gives `100`; `Math.round` also rounds
 * `-0.5` towards +Infinity. This function rounds the shortest round-trip decimal digits as
 * text instead. Never returns `-0`.
 *
 * @throws RangeError when `value` is not finite or the result is not a safe integer.
 */
export function roundToHundredths(value: number): number {
  const { negative, whole, fraction } = shiftToHundredths(value);
  const roundsUp = (fraction[0] ?? '0') >= '5';
  const magnitude = Number(whole || '0') + (roundsUp ? 1 : 0);
  if (!Number.isSafeInteger(magnitude)) {
    throw new RangeError(`${value} is too large to count in hundredths exactly`);
  }
  return negative && magnitude !== 0 ? -magnitude : magnitude;
}
