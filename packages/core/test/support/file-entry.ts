import type { FileEntry } from '../../src/executions/file-list.js';

/** One entry of a run's per-file list. */
export function entry(path: string, covered: number, coverable: number): FileEntry {
  return { path, covered, coverable };
}
