import { linePercent } from '../gate/line-percent.js';
import type { FileEntry } from './file-list.js';
import {
  decodeRanges,
  encodeLineData,
  encodeRanges,
  type LineData,
  mergeLineData,
} from './line-data.js';
import type { FileLines } from './run-lines.js';

// The report of a commit from its parts' line data (docs/decisions.md, "Parts of one commit
// and completeness"): merged line by line, never by summing counts.

/** One file's line data in a part, in the sent (and stored) encoding. */
export type PartFileLines = FileLines;

/** The merged report of a commit's parts. */
export interface MergedReport {
  /** Per file, the merged lines' counts and, with a patch, the patch's; sorted by path. */
  files: FileEntry[];
  /** Per file, the merged line data (and changed lines), sorted by path. */
  lines: PartFileLines[];
  covered: number;
  coverable: number;
  /** Merged covered over merged coverable lines, truncated to hundredths; 0 with no line. */
  coverage: number;
  /** The merged patch, or null when no part sent changed lines. */
  patch: { covered: number; coverable: number } | null;
}

/** The lines of a file in its decoded form (the parts were checked on ingest). */
function decoded(file: PartFileLines): { data: LineData; changed: number[] | null } {
  const coverable = decodeRanges(file.lines.coverable) as number[];
  const covered: number[] = [];
  let at = 0;
  file.lines.covered.forEach((run, index) => {
    if (index % 2 === 0) for (let k = 0; k < run; k += 1) covered.push(coverable[at + k]!);
    at += run;
  });
  return {
    data: { coverable, covered },
    changed: file.patch === null ? null : (decodeRanges(file.patch) as number[]),
  };
}

/** `data` without the lines `lines`: neither coverable nor covered there. */
function without(data: LineData, lines: readonly number[]): LineData {
  const left = new Set(lines);
  return {
    coverable: data.coverable.filter((line) => !left.has(line)),
    covered: data.covered.filter((line) => !left.has(line)),
  };
}

/** How many of ascending `lines` are in the ascending `within`. */
function countWithin(lines: readonly number[], within: readonly number[]): number {
  let count = 0;
  let at = 0;
  for (const line of lines) {
    while (at < within.length && within[at]! < line) at += 1;
    if (within[at] === line) count += 1;
  }
  return count;
}

/**
 * The report of a commit from the line data of its parts (each a list of files with lines):
 * per path, a line is coverable when any part lists it and covered when any part covers it;
 * the changed lines are the union of the parts' (one commit has one patch). The figures are
 * the merged lines' counts; the order of the parts changes nothing. Parts `carried` from an
 * earlier commit count on every line but this commit's changed ones: they ran on code without
 * the change, so they cannot have covered a changed line (and their own changed lines are
 * another commit's). The patch is thus the received parts' alone, in the figures and in the
 * stored lines alike (docs/decisions.md, "Carryforward of a missing part").
 */
export function mergeCommitReport(
  parts: readonly (readonly PartFileLines[])[],
  carried: readonly (readonly PartFileLines[])[] = [],
): MergedReport {
  const byFile = new Map<string, { data: LineData[]; carried: LineData[]; changed: number[][] }>();
  const add = (file: PartFileLines, isCarried: boolean) => {
    const entry = byFile.get(file.path) ?? { data: [], carried: [], changed: [] };
    const { data, changed } = decoded(file);
    if (isCarried) {
      entry.carried.push(data);
    } else {
      entry.data.push(data);
      if (changed !== null) entry.changed.push(changed);
    }
    byFile.set(file.path, entry);
  };
  for (const part of parts) for (const file of part) add(file, false);
  for (const part of carried) for (const file of part) add(file, true);
  const paths = [...byFile.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const files: FileEntry[] = [];
  const lines: PartFileLines[] = [];
  let covered = 0;
  let coverable = 0;
  let patchCovered = 0;
  let patchCoverable = 0;
  let withPatch = false;
  for (const path of paths) {
    const entry = byFile.get(path)!;
    const changed =
      entry.changed.length === 0
        ? null
        : mergeLineData(entry.changed.map((lines) => ({ coverable: lines, covered: [] })))
            .coverable;
    const carried =
      changed === null ? entry.carried : entry.carried.map((data) => without(data, changed));
    const merged = mergeLineData([...entry.data, ...carried]);
    covered += merged.covered.length;
    coverable += merged.coverable.length;
    const file: FileEntry = {
      path,
      covered: merged.covered.length,
      coverable: merged.coverable.length,
    };
    if (changed !== null) {
      withPatch = true;
      file.patchCoverable = countWithin(changed, merged.coverable);
      file.patchCovered = countWithin(changed, merged.covered);
      patchCoverable += file.patchCoverable;
      patchCovered += file.patchCovered;
    }
    files.push(file);
    lines.push({
      path,
      lines: encodeLineData(merged),
      patch: changed === null ? null : encodeRanges(changed),
    });
  }
  return {
    files,
    lines,
    covered,
    coverable,
    coverage: linePercent(covered, coverable) ?? 0,
    patch: withPatch ? { covered: patchCovered, coverable: patchCoverable } : null,
  };
}
