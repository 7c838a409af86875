import { linePercentHundredths } from '../gate/line-percent.js';
import type { FileEntry } from './file-list.js';

/** Most entries of a run detail's `changes.files`; `total` counts them all. */
export const MAX_CHANGED_FILES = 1_000;

/** A file whose coverage differs between a run and its baseline run. */
export interface FileChangeJson {
  path: string;
  /** The run's counts and percent; null (all three) for a file the run no longer has. */
  covered: number | null;
  coverable: number | null;
  /** covered / coverable truncated to hundredths; null also when nothing is coverable. */
  percent: number | null;
  /** The baseline run's counts and percent; null (all three) for a file the run added. */
  baseline_covered: number | null;
  baseline_coverable: number | null;
  baseline_percent: number | null;
  /** percent - baseline_percent in points; null when either is null. */
  change: number | null;
}

/** The files of a run whose coverage changed against its baseline run. */
export interface FileChangesJson {
  /** The baseline run the run's list was compared with. */
  baseline_id: string;
  /** How many files changed, all of them. */
  total: number;
  /** True when `files` holds only the first {@link MAX_CHANGED_FILES} of `total`. */
  truncated: boolean;
  files: FileChangeJson[];
}

/**
 * Compares a run's per-file list with its baseline run's (both sorted by path, as stored):
 * the entries whose percent differs, and those only one side has. Most lost first (`change`
 * ascending), then the entries without a change figure (added, removed, or coverable on one
 * side only), each group by path; at most {@link MAX_CHANGED_FILES}. Percentages are truncated
 * to hundredths and subtracted as integers, as the gate computes `delta`.
 */
export function fileChanges(
  baselineId: string,
  files: readonly FileEntry[],
  baselineFiles: readonly FileEntry[],
): FileChangesJson {
  // The merge walks both lists in path order, so each group comes out sorted by path and only
  // the entries with a change need sorting (stably, by change).
  const withChange: FileChangeJson[] = [];
  const withoutChange: FileChangeJson[] = [];
  let i = 0;
  let j = 0;
  while (i < files.length || j < baselineFiles.length) {
    const file = files[i];
    const before = baselineFiles[j];
    if (file !== undefined && (before === undefined || file.path < before.path)) {
      withoutChange.push(change(file.path, file, null));
      i += 1;
    } else if (before !== undefined && (file === undefined || before.path < file.path)) {
      withoutChange.push(change(before.path, null, before));
      j += 1;
    } else {
      const now = file as FileEntry;
      const then = before as FileEntry;
      i += 1;
      j += 1;
      const percent = linePercentHundredths(now.covered, now.coverable);
      const baseline = linePercentHundredths(then.covered, then.coverable);
      if (percent === baseline) continue;
      const entry = change(now.path, now, then);
      (entry.change === null ? withoutChange : withChange).push(entry);
    }
  }
  withChange.sort((a, b) => (a.change as number) - (b.change as number));
  const total = withChange.length + withoutChange.length;
  const kept = withChange.slice(0, MAX_CHANGED_FILES);
  for (const entry of withoutChange) {
    if (kept.length === MAX_CHANGED_FILES) break;
    kept.push(entry);
  }
  return {
    baseline_id: baselineId,
    total,
    truncated: total > MAX_CHANGED_FILES,
    files: kept,
  };
}

function change(path: string, now: FileEntry | null, before: FileEntry | null): FileChangeJson {
  const percent = now === null ? null : linePercentHundredths(now.covered, now.coverable);
  const baseline = before === null ? null : linePercentHundredths(before.covered, before.coverable);
  return {
    path,
    covered: now?.covered ?? null,
    coverable: now?.coverable ?? null,
    percent: percent === null ? null : percent / 100,
    baseline_covered: before?.covered ?? null,
    baseline_coverable: before?.coverable ?? null,
    baseline_percent: baseline === null ? null : baseline / 100,
    change: percent === null || baseline === null ? null : (percent - baseline) / 100,
  };
}
