import { type EncodedLineData, encodeLineData, encodeRanges, mergeLineData } from './line-data.js';

// One file's lines merged from its parts without expanding them into arrays and sets: each
// part marks its lines in a byte per line of a scratch map, and one scan writes the merged
// encoding and counts. Merging 8 parts of 20 000 files (800 000 lines a part) this way took
// a tenth of the arrays-and-sets union's time (bench/merge-parts.bench.ts,
// docs/decisions/runs.md "Merging parts fast").

/** The flags of a line in the scratch map. */
const COVERABLE = 1;
const COVERED = 2;
const CHANGED = 4;

/**
 * The map is used when the file's last line is at most this many times the lines its parts
 * list (plus a margin): a file listing one line at line 10 000 000 would otherwise cost a scan
 * of ten million bytes. Beyond, the lines are merged as sorted arrays.
 */
const MAX_SPREAD = 64;
const SPREAD_MARGIN = 4096;

let scratch = new Uint8Array(64 * 1024);

/** One part's (or carried part's) lines of a file, in the sent and stored encoding. */
export interface FileLinesOfPart {
  lines: EncodedLineData;
  /** The patch's changed lines as `gap, length` ranges; null when the part sent none. */
  patch: number[] | null;
}

/** A file's lines merged from its parts, with the counts the report needs. */
export interface MergedFileLines {
  lines: EncodedLineData;
  /** The union of the received parts' changed lines; null when none sent any. */
  patch: number[] | null;
  covered: number;
  coverable: number;
  /** Changed lines that are coverable and covered in the merge (0 without a patch). */
  patchCoverable: number;
  patchCovered: number;
}

/** The last line of `gap, length` ranges (0 for none), and how many lines they hold. */
function extentOf(ranges: readonly number[]): { last: number; count: number } {
  let last = 0;
  let count = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    last += ranges[i]! + ranges[i + 1]! - 1;
    count += ranges[i + 1]!;
  }
  return { last, count };
}

/** Sets `flag` on every line of `ranges`. */
function markRanges(map: Uint8Array, ranges: readonly number[], flag: number): void {
  let line = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    const start = line + ranges[i]!;
    const end = start + ranges[i + 1]! - 1;
    for (let at = start; at <= end; at += 1) map[at]! |= flag;
    line = end;
  }
}

/**
 * Marks a part's coverable lines, and those its runs say are covered; with `skipChanged`, not
 * on changed lines (a carried part ran on code without the change).
 */
function markPart(map: Uint8Array, { coverable, covered }: EncodedLineData, skipChanged: boolean) {
  let run = 0;
  let left = covered[0] ?? 0;
  let line = 0;
  for (let i = 0; i < coverable.length; i += 2) {
    const start = line + coverable[i]!;
    const end = start + coverable[i + 1]! - 1;
    for (let at = start; at <= end; at += 1) {
      while (left === 0 && run + 1 < covered.length) left = covered[++run]!;
      left -= 1;
      if (skipChanged && (map[at]! & CHANGED) !== 0) continue;
      map[at]! |= run % 2 === 0 ? COVERABLE | COVERED : COVERABLE;
    }
    line = end;
  }
}

/**
 * A file's lines merged from the parts that sent it (`parts`) and the parts carried from an
 * earlier commit (`carried`): a line is coverable when any lists it and covered when any
 * covers it; the changed lines are the union of the received parts' patches, and carried parts
 * count on no changed line. The parts were checked on ingest.
 */
export function mergeFileLines(
  parts: readonly FileLinesOfPart[],
  carried: readonly FileLinesOfPart[] = [],
): MergedFileLines {
  let last = 0;
  let listed = 0;
  let withPatch = false;
  for (const part of carried) {
    const lines = extentOf(part.lines.coverable);
    last = Math.max(last, lines.last);
    listed += lines.count;
  }
  for (const part of parts) {
    const lines = extentOf(part.lines.coverable);
    last = Math.max(last, lines.last);
    listed += lines.count;
    if (part.patch !== null) {
      withPatch = true;
      const changed = extentOf(part.patch);
      last = Math.max(last, changed.last);
      listed += changed.count;
    }
  }
  if (last > MAX_SPREAD * listed + SPREAD_MARGIN) return mergeSparse(parts, carried, withPatch);
  if (scratch.length <= last) scratch = new Uint8Array(Math.max(last + 1, scratch.length * 2));
  const map = scratch;
  map.fill(0, 0, last + 1);
  for (const part of parts) if (part.patch !== null) markRanges(map, part.patch, CHANGED);
  for (const part of parts) markPart(map, part.lines, false);
  for (const part of carried) markPart(map, part.lines, withPatch);
  return scan(map, last, withPatch);
}

/** The merged encoding and counts from the marks of lines 1 to `last`. */
function scan(map: Uint8Array, last: number, withPatch: boolean): MergedFileLines {
  const ranges: number[] = [];
  const runs: number[] = [];
  const patch: number[] = [];
  let covered = 0;
  let coverable = 0;
  let patchCovered = 0;
  let patchCoverable = 0;
  let rangeStart = 0;
  let rangeEnd = 0;
  let patchStart = 0;
  let patchEnd = 0;
  let hit = true;
  let run = 0;
  for (let line = 1; line <= last + 1; line += 1) {
    const flags = line <= last ? map[line]! : 0;
    if ((flags & COVERABLE) !== 0) {
      if (rangeStart === 0) rangeStart = line;
      coverable += 1;
      const isCovered = (flags & COVERED) !== 0;
      if (isCovered) covered += 1;
      if (isCovered !== hit) {
        runs.push(run);
        hit = isCovered;
        run = 0;
      }
      run += 1;
      if ((flags & CHANGED) !== 0) {
        patchCoverable += 1;
        if (isCovered) patchCovered += 1;
      }
    } else if (rangeStart !== 0) {
      ranges.push(rangeStart - rangeEnd, line - rangeStart);
      rangeEnd = line - 1;
      rangeStart = 0;
    }
    if ((flags & CHANGED) !== 0) {
      if (patchStart === 0) patchStart = line;
    } else if (patchStart !== 0) {
      patch.push(patchStart - patchEnd, line - patchStart);
      patchEnd = line - 1;
      patchStart = 0;
    }
  }
  if (run > 0) runs.push(run);
  return {
    lines: { coverable: ranges, covered: runs },
    patch: withPatch ? patch : null,
    covered,
    coverable,
    patchCoverable,
    patchCovered,
  };
}

/** The lines of `gap, length` ranges. */
function linesOf(ranges: readonly number[]): number[] {
  const lines: number[] = [];
  markEach(ranges, (line) => lines.push(line));
  return lines;
}

function markEach(ranges: readonly number[], each: (line: number) => void): void {
  let line = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    const start = line + ranges[i]!;
    const end = start + ranges[i + 1]! - 1;
    for (let at = start; at <= end; at += 1) each(at);
    line = end;
  }
}

/** A part's coverable and covered lines as arrays. */
function decodedPart({ coverable, covered }: EncodedLineData) {
  const all = linesOf(coverable);
  const hits: number[] = [];
  let at = 0;
  covered.forEach((run, index) => {
    if (index % 2 === 0) for (let k = 0; k < run; k += 1) hits.push(all[at + k]!);
    at += run;
  });
  return { coverable: all, covered: hits };
}

/** {@link mergeFileLines} for lines spread far apart: sorted arrays instead of a map. */
function mergeSparse(
  parts: readonly FileLinesOfPart[],
  carried: readonly FileLinesOfPart[],
  withPatch: boolean,
): MergedFileLines {
  const changed = new Set<number>();
  for (const part of parts) if (part.patch !== null) markEach(part.patch, (l) => changed.add(l));
  const keep = (lines: number[]) => lines.filter((line) => !changed.has(line));
  const merged = mergeLineData([
    ...parts.map((part) => decodedPart(part.lines)),
    ...carried.map((part) => {
      const data = decodedPart(part.lines);
      return { coverable: keep(data.coverable), covered: keep(data.covered) };
    }),
  ]);
  const sortedChanged = [...changed].sort((a, b) => a - b);
  return {
    lines: encodeLineData(merged),
    patch: withPatch ? encodeRanges(sortedChanged) : null,
    covered: merged.covered.length,
    coverable: merged.coverable.length,
    patchCoverable: merged.coverable.filter((line) => changed.has(line)).length,
    patchCovered: merged.covered.filter((line) => changed.has(line)).length,
  };
}
