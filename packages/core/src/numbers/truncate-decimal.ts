/** How many decimals a percentage is shown with. */
export type PercentPlaces = 0 | 1 | 2;

/**
 * Converts a number to integer hundredths, truncating towards zero on the decimal the number
 * was written as: `99.936` -> `9993`, `79.996` -> `7999`, `0.29` -> `29`, `-0.019` -> `-1`.
 *
 * Truncation, not rounding, because a coverage gate must never pass on rounding: 79.996 % is
 * below 80 %. `Math.floor(value * 100)` works on the binary value instead, which is slightly
 * below most decimals (`0.29 * 100` is `28.999999999999996`, floored to `28`); this function
 * cuts the shortest round-trip decimal digits (what `String(value)` shows, which are the
 * digits a person or a JSON document wrote) as text. Never returns `-0`.
 *
 * @throws RangeError when `value` is not finite or the result is not a safe integer.
 */
export function truncateToHundredths(value: number): number {
  if (!Number.isFinite(value)) {
    throw new RangeError(`expected a finite number, got ${value}`);
  }
  // Without an argument toExponential keeps exactly the shortest round-trip digits; a finite
  // number always prints as `d[.ddd]e±n`.
  const [mantissa, exponent] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  // How many digits stand before the point once it is moved two places to the right.
  const wholeDigits = Math.max(1 + Number(exponent) + 2, 0);
  // `Number('')` is 0: below one hundredth nothing is left.
  const magnitude = Number(digits.slice(0, wholeDigits).padEnd(wholeDigits, '0'));
  if (!Number.isSafeInteger(magnitude)) {
    throw new RangeError(`${value} is too large to count in hundredths exactly`);
  }
  // `+ 0` turns the -0 of a negative value above -0.01 into 0.
  return Math.sign(value) * magnitude + 0;
}

/**
 * A number as text with `places` decimals, truncated towards zero on the decimal it was
 * written as: `truncateDecimal(99.936)` is `99.93`, `truncateDecimal(79.996, 0)` is `79`,
 * `truncateDecimal(84.19, 1)` is `84.1`. No exponent; no sign when what is shown is zero
 * (`-0.004` gives `0.00`). This is how covgate shows every percentage (API, badge, dashboard).
 *
 * @throws RangeError when `value` is not finite or beyond a safe integer of hundredths.
 */
export function truncateDecimal(value: number, places: PercentPlaces = 2): string {
  const hundredths = truncateToHundredths(value);
  // Safe integers print without an exponent, so the text can be cut at two digits.
  const digits = String(Math.abs(hundredths)).padStart(3, '0');
  const kept = digits.slice(0, digits.length - 2 + places);
  const whole = kept.slice(0, digits.length - 2);
  const shown = places === 0 ? whole : `${whole}.${kept.slice(whole.length)}`;
  return Math.sign(hundredths) * Number(kept) < 0 ? `-${shown}` : shown;
}
