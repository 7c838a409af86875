import { linePercent } from '../gate/line-percent.js';
import type { FileEntry } from './file-list.js';

/** One file (or rolled-up folder) of a run's patch, as `GET /v1/executions/{id}` shows it. */
export interface PatchFileJson {
  path: string;
  /** Lines of the patch in the file that ran. */
  patch_covered: number;
  /** Coverable lines of the patch in the file; always above 0 here. */
  patch_coverable: number;
  /** patch_covered / patch_coverable in percent, truncated to hundredths. */
  patch_percent: number;
}

/**
 * The entries of a run's list that hold coverable lines of its patch, most missed patch lines
 * (`patch_coverable - patch_covered`) first, then by path; null when no entry carries patch
 * counts (the run sent none per file).
 */
export function patchFiles(files: readonly FileEntry[]): PatchFileJson[] | null {
  let sent = false;
  const touched: PatchFileJson[] = [];
  for (const file of files) {
    if (file.patchCoverable === undefined || file.patchCovered === undefined) continue;
    sent = true;
    if (file.patchCoverable === 0) continue;
    touched.push({
      path: file.path,
      patch_covered: file.patchCovered,
      patch_coverable: file.patchCoverable,
      patch_percent: linePercent(file.patchCovered, file.patchCoverable) as number,
    });
  }
  if (!sent) return null;
  return touched.sort(
    (a, b) => missed(b) - missed(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

function missed(file: PatchFileJson): number {
  return file.patch_coverable - file.patch_covered;
}
