/**
 * The magnitude of a number, read as the decimal it was written as, multiplied by 100 and
 * split at the decimal point. `whole` is empty below one hundredth; the sign is separate.
 */
export interface HundredthsDigits {
  negative: boolean;
  whole: string;
  fraction: string;
}

/**
 * Shifts the shortest round-trip decimal of `value` (the digits `String(value)` would show,
 * which are the digits a person or a JSON document wrote) two places to the left, in text.
 *
 * Working on those digits rather than on the binary value is what makes `1.005` round to
 * `101` hundredths: the double nearest to 1.005 is 1.00499999999999989..., so any binary
 * arithmetic (`Math.round(value * 100)`, `value.toFixed(2)`) sees a value below the half.
 *
 * @throws RangeError when `value` is not finite.
 */
export function shiftToHundredths(value: number): HundredthsDigits {
  if (!Number.isFinite(value)) {
    throw new RangeError(`expected a finite number, got ${value}`);
  }
  // Without an argument toExponential keeps exactly the shortest round-trip digits.
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const pointAt = 1 + Number(exponent) + 2;
  const negative = value < 0;
  if (pointAt <= 0) {
    return { negative, whole: '', fraction: '0'.repeat(-pointAt) + digits };
  }
  if (pointAt >= digits.length) {
    return { negative, whole: digits + '0'.repeat(pointAt - digits.length), fraction: '' };
  }
  return { negative, whole: digits.slice(0, pointAt), fraction: digits.slice(pointAt) };
}
