import { MAX_LINE_NUMBER, rangeIntervals } from './line-data-check.js';

/**
 * A file's line coverage as line numbers: which lines can run, and which of them ran. The wire
 * and storage form is {@link EncodedLineData} (see docs/decisions.md, "Line data").
 */
export interface LineData {
  /** Coverable line numbers, ascending, each once, from 1. */
  coverable: number[];
  /** Covered line numbers, ascending, each once, each also in `coverable`. */
  covered: number[];
}

/**
 * {@link LineData} as sent and stored: `coverable` as ranges, each a pair `gap, length` in one
 * flat list (a range starts `gap` lines after the previous one's last line, the first after
 * line 0, and holds `length` lines); `covered` as alternating runs over the coverable lines in
 * order, covered first (`[5]`: all five covered; `[0, 2, 3]`: two missed, then three covered).
 */
export interface EncodedLineData {
  /** The coverable lines as flat `gap, length` ranges. */
  coverable: number[];
  /** Alternating runs over the coverable lines, covered first. */
  covered: number[];
}

export { MAX_LINE_NUMBER };

/** Ascending distinct line numbers as flat `gap, length` ranges, adjacent lines joined. */
export function encodeRanges(lines: readonly number[]): number[] {
  const out: number[] = [];
  let end = 0;
  let index = 0;
  while (index < lines.length) {
    const start = lines[index]!;
    let last = start;
    while (index + 1 < lines.length && lines[index + 1] === last + 1) last = lines[++index]!;
    out.push(start - end, last - start + 1);
    end = last;
    index += 1;
  }
  return out;
}

/**
 * The line numbers of flat `gap, length` ranges, or the problem with them: ranges must be
 * pairs of whole numbers, ascending and apart (a gap of at least 1, then at least 2: adjacent
 * ranges are one), non-empty, within {@link MAX_LINE_NUMBER}.
 */
export function decodeRanges(ranges: readonly unknown[]): number[] | { problem: string } {
  const intervals = rangeIntervals(ranges);
  if (!Array.isArray(intervals)) return intervals;
  const lines: number[] = [];
  for (const [start, end] of intervals)
    for (let line = start; line <= end; line += 1) lines.push(line);
  return lines;
}

/** Alternating runs over `coverable` (covered first) of the lines of `covered`. */
export function encodeCovered(coverable: readonly number[], covered: readonly number[]): number[] {
  const runs: number[] = [];
  let hit = true;
  let run = 0;
  let next = 0;
  for (const line of coverable) {
    const isCovered = covered[next] === line;
    if (isCovered) next += 1;
    if (isCovered !== hit) {
      runs.push(run);
      hit = isCovered;
      run = 0;
    }
    run += 1;
  }
  if (run > 0) runs.push(run);
  return runs;
}

/** The covered lines of runs over `coverable`, or the problem: runs must add up to it. */
function decodeCovered(
  coverable: readonly number[],
  runs: readonly unknown[],
): number[] | { problem: string } {
  const covered: number[] = [];
  let at = 0;
  for (let index = 0; index < runs.length; index += 1) {
    const run = runs[index];
    if (!Number.isSafeInteger(run) || (run as number) < (index === 0 ? 0 : 1))
      return { problem: `covered: run ${index + 1} is not a whole number above 0` };
    if (at + (run as number) > coverable.length)
      return { problem: 'covered: the runs go past the coverable lines' };
    if (index % 2 === 0)
      for (let k = 0; k < (run as number); k += 1) covered.push(coverable[at + k]!);
    at += run as number;
  }
  if (at !== coverable.length)
    return {
      problem: `covered: the runs cover ${at} of the ${coverable.length} coverable lines`,
    };
  return covered;
}

/** {@link LineData} in its sent and stored form. */
export function encodeLineData(data: LineData): EncodedLineData {
  return {
    coverable: encodeRanges(data.coverable),
    covered: encodeCovered(data.coverable, data.covered),
  };
}

/**
 * The line data of a `files` entry, checked against the entry's counts, or why it is refused:
 * the ranges as {@link decodeRanges} says, the runs adding up to the coverable lines, and the
 * line counts equal to the entry's `coverable` and `covered`.
 */
export function decodeLineData(
  encoded: { coverable: readonly unknown[]; covered: readonly unknown[] },
  counts: { covered: number; coverable: number },
): LineData | { problem: string } {
  const coverable = decodeRanges(encoded.coverable);
  if (!Array.isArray(coverable)) return { problem: `coverable: ${coverable.problem}` };
  if (coverable.length !== counts.coverable)
    return {
      problem: `${coverable.length} coverable lines listed, but coverable is ${counts.coverable}`,
    };
  const covered = decodeCovered(coverable, encoded.covered);
  if (!Array.isArray(covered)) return covered;
  if (covered.length !== counts.covered)
    return { problem: `${covered.length} covered lines listed, but covered is ${counts.covered}` };
  return { coverable, covered };
}

/**
 * The line data of one file measured in several parts (shards, matrix jobs), merged: a line is
 * coverable when any part lists it, and covered when any part covers it. Parts that list a
 * line as covered always list it as coverable, so the result keeps `covered` within
 * `coverable`; the order of the parts does not matter.
 */
export function mergeLineData(parts: readonly LineData[]): LineData {
  return {
    coverable: unionOf(parts.map((part) => part.coverable)),
    covered: unionOf(parts.map((part) => part.covered)),
  };
}

/** The union of ascending lists of distinct numbers, ascending. */
function unionOf(lists: readonly (readonly number[])[]): number[] {
  if (lists.length === 1) return [...lists[0]!];
  const all = new Set<number>();
  for (const list of lists) for (const line of list) all.add(line);
  return [...all].sort((a, b) => a - b);
}
