/**
 * `covered / coverable` in integer hundredths of a percent, floored (covgate never rounds a
 * coverage figure up), or null when nothing is coverable. Integer division: exact for counts
 * far below 2^53 / 10^4.
 */
export function linePercentHundredths(covered: number, coverable: number): number | null {
  if (coverable === 0) return null;
  return Math.floor((covered * 10_000) / coverable);
}

/** {@link linePercentHundredths} as a percentage with at most two decimals (`77.77`). */
export function linePercent(covered: number, coverable: number): number | null {
  const hundredths = linePercentHundredths(covered, coverable);
  return hundredths === null ? null : hundredths / 100;
}
