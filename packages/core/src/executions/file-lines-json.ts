import {
  type Interval,
  lineCount,
  rangeIntervals,
  runIntervals,
  sharedLines,
} from './line-data-check.js';
import type { FileLines } from './run-lines.js';

/** The `404` message for a file of a known run that has no line data (its lines and its source). */
export const NO_FILE_LINES = 'no line data for this file in this run';

/** The `410` message for a file of a run whose detail retention pruned (its lines and its source). */
export const DETAIL_PRUNED =
  'the detail of this run was pruned by the retention setting; its figures remain';

/** A file's lines as `GET /v1/executions/{id}/files/{path}` answers them. */
export interface FileLinesJson {
  execution_id: string;
  path: string;
  covered: number;
  coverable: number;
  /** Covered lines as `[first, last]` ranges, ascending. */
  covered_lines: Interval[];
  /** Coverable lines no test ran, as ranges; a line in neither list is not coverable. */
  missed_lines: Interval[];
  /** The lines the run's patch adds or changes in the file, as ranges; null when not sent. */
  patch_lines: Interval[] | null;
  /** Changed lines that are covered; null without `patch_lines`. */
  patch_covered: number | null;
  /** Changed lines that are coverable; null without `patch_lines`. */
  patch_coverable: number | null;
}

/**
 * A stored file's lines as ranges of line numbers a reader can show: covered, missed (lines
 * in neither are not coverable) and the patch's. The data was checked on ingest, so a
 * problem here is a broken store and throws.
 */
export function fileLinesJson(executionId: string, file: FileLines): FileLinesJson {
  const coverable = rangeIntervals(file.lines.coverable);
  if ('problem' in coverable) throw new Error(`stored line data: ${coverable.problem}`);
  const runs = runIntervals(coverable, lineCount(coverable), file.lines.covered);
  if ('problem' in runs) throw new Error(`stored line data: ${runs.problem}`);
  const patch = file.patch === null ? null : rangeIntervals(file.patch);
  if (patch !== null && 'problem' in patch) throw new Error(`stored line data: ${patch.problem}`);
  return {
    execution_id: executionId,
    path: file.path,
    covered: lineCount(runs.covered),
    coverable: lineCount(coverable),
    covered_lines: runs.covered,
    missed_lines: runs.missed,
    patch_lines: patch,
    patch_covered: patch === null ? null : sharedLines(patch, runs.covered),
    patch_coverable: patch === null ? null : sharedLines(patch, coverable),
  };
}
