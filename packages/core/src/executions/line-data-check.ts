/** Highest line number accepted: far beyond any source file, well inside a 32-bit integer. */
export const MAX_LINE_NUMBER = 10_000_000;

/** Lines `start` to `end`, both included. */
export type Interval = readonly [start: number, end: number];

/** Why a file's line data is refused: said after the file's path in the ingest's `400`. */
export interface LineDataProblem {
  problem: string;
}

/**
 * Checks flat `gap, length` ranges and counts their lines, pushing each range's interval to
 * `intervals` when given (left out, nothing is allocated: most files need only the count).
 * Ranges must be pairs of whole numbers, ascending and apart (a gap of at least 1, then at
 * least 2: adjacent ranges are one), non-empty, within {@link MAX_LINE_NUMBER}. Never expands
 * a range into its lines, so a range of ten million lines costs what a range of one does.
 */
function walkRanges(
  ranges: readonly unknown[],
  intervals: Interval[] | null,
): number | LineDataProblem {
  if (ranges.length % 2 !== 0) return { problem: 'an odd count of numbers (gap, length pairs)' };
  let count = 0;
  let end = 0;
  for (let pair = 0; pair < ranges.length / 2; pair += 1) {
    const gap = ranges[2 * pair];
    const length = ranges[2 * pair + 1];
    if (!Number.isSafeInteger(gap) || !Number.isSafeInteger(length))
      return { problem: `range ${pair + 1} is not two whole numbers` };
    if ((gap as number) < (pair === 0 ? 1 : 2))
      return {
        problem: `range ${pair + 1} is not after the previous one (gap ${gap}; ascending ranges, adjacent ones joined)`,
      };
    if ((length as number) < 1) return { problem: `range ${pair + 1} is empty` };
    const start = end + (gap as number);
    end = start + (length as number) - 1;
    if (end > MAX_LINE_NUMBER)
      return { problem: `range ${pair + 1} goes past line ${MAX_LINE_NUMBER}` };
    count += length as number;
    intervals?.push([start, end]);
  }
  return count;
}

/** The intervals of flat `gap, length` ranges, or the problem with them (see `walkRanges`). */
export function rangeIntervals(ranges: readonly unknown[]): Interval[] | LineDataProblem {
  const intervals: Interval[] = [];
  const walked = walkRanges(ranges, intervals);
  return typeof walked === 'number' ? intervals : walked;
}

/**
 * The covered lines of runs over `total` coverable lines (alternating covered and missed,
 * covered first), or the problem: runs must be whole numbers (only the first may be 0)
 * adding up to the coverable lines exactly.
 */
function coveredCount(total: number, runs: readonly unknown[]): number | LineDataProblem {
  let sum = 0;
  let covered = 0;
  for (let index = 0; index < runs.length; index += 1) {
    const run = runs[index];
    if (!Number.isSafeInteger(run) || (run as number) < (index === 0 ? 0 : 1))
      return { problem: `covered: run ${index + 1} is not a whole number above 0` };
    sum += run as number;
    if (index % 2 === 0) covered += run as number;
    if (sum > total) return { problem: 'covered: the runs go past the coverable lines' };
  }
  if (sum !== total)
    return { problem: `covered: the runs cover ${sum} of the ${total} coverable lines` };
  return covered;
}

/**
 * The covered and the missed lines as intervals, from runs over the coverable intervals
 * (alternating covered and missed, covered first), or the problem: runs must be whole numbers
 * (only the first may be 0) adding up to the coverable lines exactly.
 */
export function runIntervals(
  coverable: readonly Interval[],
  total: number,
  runs: readonly unknown[],
): { covered: Interval[]; missed: Interval[] } | LineDataProblem {
  const checked = coveredCount(total, runs);
  if (typeof checked !== 'number') return checked;
  const covered: Interval[] = [];
  const missed: Interval[] = [];
  // Walks the coverable intervals run by run: `at` is the next line, inside interval `which`.
  let which = 0;
  let at = coverable[0]?.[0] ?? 0;
  for (let index = 0; index < runs.length; index += 1) {
    let left = runs[index] as number;
    while (left > 0) {
      const [, end] = coverable[which]!;
      const take = Math.min(left, end - at + 1);
      (index % 2 === 0 ? covered : missed).push([at, at + take - 1]);
      left -= take;
      at += take;
      if (at > end && which + 1 < coverable.length) {
        which += 1;
        at = coverable[which]![0];
      }
    }
  }
  return { covered, missed };
}

/** How many lines the intervals hold. */
export function lineCount(intervals: readonly Interval[]): number {
  let count = 0;
  for (const [start, end] of intervals) count += end - start + 1;
  return count;
}

/** How many lines two ascending lists of disjoint intervals share. */
export function sharedLines(a: readonly Interval[], b: readonly Interval[]): number {
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [aStart, aEnd] = a[i]!;
    const [bStart, bEnd] = b[j]!;
    const start = Math.max(aStart, bStart);
    const end = Math.min(aEnd, bEnd);
    if (start <= end) shared += end - start + 1;
    if (aEnd < bEnd) i += 1;
    else j += 1;
  }
  return shared;
}

/** The lines two ascending lists of disjoint intervals share, as intervals, ascending. */
export function sharedIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const shared: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [aStart, aEnd] = a[i]!;
    const [bStart, bEnd] = b[j]!;
    const start = Math.max(aStart, bStart);
    const end = Math.min(aEnd, bEnd);
    if (start <= end) shared.push([start, end]);
    if (aEnd < bEnd) i += 1;
    else j += 1;
  }
  return shared;
}

/** A refusal of {@link checkLineData}: the entry's field at fault and why. */
export interface FieldProblem extends LineDataProblem {
  field: 'lines' | 'patch_lines';
}

/** What a file's checked line data says: its counts, and those of its patch lines. */
export interface CheckedLineData {
  covered: number;
  coverable: number;
  /** Changed lines that are coverable and covered; null without patch lines. */
  patchCovered: number | null;
  /** Changed lines that are coverable; null without patch lines. */
  patchCoverable: number | null;
}

/**
 * Checks a file's line data as sent (see `EncodedLineData`) and its patch's changed lines
 * (`gap, length` ranges, or null) without expanding any range into lines, so its cost follows
 * the size of the encoding: the ranges as {@link rangeIntervals} says, the covered runs
 * adding up to the coverable lines, and the line counts equal to the entry's. Gives the
 * counts, the patch's among them (changed lines that are coverable, and covered), or the
 * problem with its field (`coverable: range 2 is empty`).
 */
export function checkLineData(
  encoded: { coverable: readonly unknown[]; covered: readonly unknown[] },
  counts: { covered: number; coverable: number },
  patch: readonly unknown[] | null,
): CheckedLineData | FieldProblem {
  const lines = (problem: string): FieldProblem => ({ field: 'lines', problem });
  // Intervals only for a file with patch lines, which need them to intersect.
  const coverable: Interval[] | null = patch === null ? null : [];
  const total = walkRanges(encoded.coverable, coverable);
  if (typeof total !== 'number') return lines(`coverable: ${total.problem}`);
  if (total !== counts.coverable)
    return lines(`${total} coverable lines listed, but coverable is ${counts.coverable}`);
  const covered = coveredCount(total, encoded.covered);
  if (typeof covered !== 'number') return lines(covered.problem);
  if (covered !== counts.covered)
    return lines(`${covered} covered lines listed, but covered is ${counts.covered}`);
  if (patch === null || coverable === null)
    return { covered, coverable: total, patchCovered: null, patchCoverable: null };
  const changed = rangeIntervals(patch);
  if (!Array.isArray(changed)) return { field: 'patch_lines', problem: changed.problem };
  const runs = runIntervals(coverable, total, encoded.covered) as { covered: Interval[] };
  return {
    covered,
    coverable: total,
    patchCovered: sharedLines(changed, runs.covered),
    patchCoverable: sharedLines(changed, coverable),
  };
}
