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
  // Safe integers print without an exponent, so the text can be split at two digits.
  const digits = String(Math.abs(hundredths)).padStart(3, '0');
  const sign = hundredths > 0 ? '+' : hundredths < 0 ? '-' : '';
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
