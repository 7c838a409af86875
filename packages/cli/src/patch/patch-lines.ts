import { plural } from '../report-lines.js';
import type { PatchCoverage } from './patch-coverage.js';

/** How many paths a line names before "and N more". */
const PATHS_SHOWN = 5;

/** Where a patch starts, as the lines covgate prints name it. */
export interface PatchOrigin {
  base_ref: string;
  merge_base: string;
}

/** `12-14, 20`: ascending line numbers with runs joined. */
export function lineRanges(lines: readonly number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const start = lines[i] as number;
    let end = start;
    while (lines[i + 1] === end + 1) {
      end++;
      i++;
    }
    parts.push(start === end ? String(start) : `${start}-${end}`);
    i++;
  }
  return parts.join(', ');
}

/** `7 of 9 changed lines covered, 77.77%`, or that no coverable line changed. */
export function patchFigure(patch: PatchCoverage): string {
  if (patch.percent === null) return 'no coverable line changed';
  return `${patch.covered} of ${patch.coverable} changed lines covered, ${patch.percent.toFixed(2)}%`;
}

/**
 * The line covgate prints (stderr) once the patch is measured, e.g.
 * `patch: 7 of 9 changed lines covered, 77.77% (12 lines changed in 3 files since 1a2b3c4d5e6f, the merge base with origin/main)`.
 */
export function patchSummaryLine(patch: PatchCoverage & PatchOrigin): string {
  return `patch: ${patchFigure(patch)} (${plural(patch.changed_lines, 'line')} changed in ${plural(patch.changed_files, 'file')} since ${patch.merge_base.slice(0, 12)}, the merge base with ${patch.base_ref})`;
}

/** `--verbose`: each file of the patch with its figure and the changed lines not covered. */
export function patchVerboseLines(patch: PatchCoverage): string[] {
  return patch.files.map((file) => {
    const missed =
      file.uncovered_lines.length > 0 ? `; not covered: ${lineRanges(file.uncovered_lines)}` : '';
    return `  ${file.path}: ${file.covered} of ${file.coverable} changed lines covered${missed}`;
  });
}

/**
 * What is said about changed files whose lines could not be counted: files in no report (a
 * note), files a report names without lines (a warning, since they may be sources).
 */
export function patchNotes(patch: PatchCoverage): { notes: string[]; warnings: string[] } {
  const notes: string[] = [];
  const warnings: string[] = [];
  if (patch.not_in_report.length > 0) {
    notes.push(
      `patch: ${plural(patch.not_in_report.length, 'changed file is', 'changed files are')} in no report and not counted: ${listed(patch.not_in_report)}`,
    );
  }
  if (patch.no_line_data.length > 0) {
    warnings.push(
      `patch coverage: the reports give no lines for ${plural(patch.no_line_data.length, 'changed file')} (${listed(patch.no_line_data)}), only totals; their lines are not counted: give a report with lines (lcov, coverage-final.json, Cobertura...)`,
    );
  }
  return { notes, warnings };
}

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, PATHS_SHOWN).join(', ');
  return paths.length > PATHS_SHOWN ? `${shown} and ${paths.length - PATHS_SHOWN} more` : shown;
}
