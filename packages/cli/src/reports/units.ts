import { type FileCoverage, MalformedReport } from './types.js';

/**
 * Builds a file's coverage from a map of unit -> hits (and optional weights), so every parser
 * counts the same way: a unit is covered when hit at least once.
 */
export function fileFromUnits(
  path: string,
  units: Map<number | string, number>,
  weights?: Map<number | string, number>,
): FileCoverage {
  let coverable = 0;
  let covered = 0;
  for (const [unit, hits] of units) {
    const weight = weights?.get(unit) ?? 1;
    coverable += weight;
    if (hits > 0) covered += weight;
  }
  const unitsOf = () => units;
  return weights
    ? { path, coverable, covered, units: unitsOf, weights }
    : { path, coverable, covered, units: unitsOf };
}

/** Records `hits` for `unit`, keeping the larger count when the unit is seen again. */
export function recordHits(
  units: Map<number | string, number>,
  unit: number | string,
  hits: number,
): void {
  const previous = units.get(unit);
  if (previous === undefined || hits > previous) units.set(unit, hits);
}

/** Parses a non-negative integer attribute or field, or throws with `what` in the message. */
export function count(value: unknown, what: string): number {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(n) || n < 0)
    throw new MalformedReport(`${what} is not a count: ${String(value).slice(0, 40)}`);
  return n;
}
