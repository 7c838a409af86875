import { linePercent } from '../gate/line-percent.js';
import type { FileEntry } from './file-list.js';
import { mergeFileLines } from './merge-file-lines.js';
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
  const byFile = new Map<string, { parts: PartFileLines[]; carried: PartFileLines[] }>();
  const entryOf = (path: string) => {
    let entry = byFile.get(path);
    if (entry === undefined) {
      entry = { parts: [], carried: [] };
      byFile.set(path, entry);
    }
    return entry;
  };
  for (const part of parts) for (const file of part) entryOf(file.path).parts.push(file);
  for (const part of carried) for (const file of part) entryOf(file.path).carried.push(file);
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
    const merged = mergeFileLines(entry.parts, entry.carried);
    covered += merged.covered;
    coverable += merged.coverable;
    const file: FileEntry = { path, covered: merged.covered, coverable: merged.coverable };
    if (merged.patch !== null) {
      withPatch = true;
      file.patchCoverable = merged.patchCoverable;
      file.patchCovered = merged.patchCovered;
      patchCoverable += merged.patchCoverable;
      patchCovered += merged.patchCovered;
    }
    files.push(file);
    lines.push({ path, lines: merged.lines, patch: merged.patch });
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
