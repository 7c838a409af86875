/**
 * A percentage truncated to hundredths, never rounded up (99.936 is 99.93), as istanbul's
 * summaries print it: a gate must not pass on rounding. Computed on integers, so no
 * floating-point error can move a figure across a hundredth.
 */
export function percentOf(covered: number, coverable: number): number {
  if (coverable <= 0) return 0;
  const scaled = covered * 10000;
  let hundredths = Math.floor(scaled / coverable);
  // The division is rounded to the nearest double: step back if that crossed a whole number.
  if (hundredths * coverable > scaled) hundredths--;
  else if ((hundredths + 1) * coverable <= scaled) hundredths++;
  return hundredths / 100;
}
