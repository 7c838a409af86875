/** Per-file line counts as the service takes them (`files` of `POST /v1/executions`). */
export interface FileEntry {
  path: string;
  covered: number;
  coverable: number;
  /** Lines of the patch in the file that ran; with `patch_coverable`, only for patch files. */
  patch_covered?: number;
  /** Coverable lines of the patch in the file. */
  patch_coverable?: number;
  /** The file's coverable and covered lines, encoded (`@covgate/core/line-data`). */
  lines?: { coverable: number[]; covered: number[] };
  /** The lines the patch adds or changes in the file, as `gap, length` ranges. */
  patch_lines?: number[];
  /** The file's branch counts, when its report carries branch data. */
  branches?: { covered: number; total: number };
}

/**
 * The files with the patch counts of those the patch has coverable lines in. A file whose
 * patch counts more lines than the file's own coverable count (a Go file: its coverable units
 * are statements, its patch lines every line of a block) gets none, since the service takes
 * at most `coverable` patch lines per file.
 */
export function withPatchCounts(
  files: readonly FileEntry[],
  patchFiles: readonly { path: string; covered: number; coverable: number }[],
): FileEntry[] {
  const byPath = new Map(patchFiles.map((file) => [file.path, file]));
  return files.map((file) => {
    const patch = byPath.get(file.path);
    if (patch === undefined || patch.coverable > file.coverable) return file;
    return { ...file, patch_covered: patch.covered, patch_coverable: patch.coverable };
  });
}

/** Most entries the service takes in one run's `files` list. */
export const MAX_FILE_ENTRIES = 50_000;

/**
 * The run's per-file list, at most `max` entries: the files themselves when they fit, else
 * the files at least `depth` folders deep rolled up into their folder at that depth (an entry
 * whose path ends in `/`, its counts the sum of its files), with the deepest depth that fits
 * (`rolledUpTo`). Sorted by path. A repository whose top level alone has more than `max` entries becomes one `./` entry.
 */
export function fileEntries(
  files: readonly FileEntry[],
  max: number = MAX_FILE_ENTRIES,
): { entries: FileEntry[]; rolledUpTo: number | null } {
  if (files.length <= max) return { entries: sorted([...files]), rolledUpTo: null };
  const deepest = Math.max(...files.map((file) => file.path.split('/').length - 1));
  for (let depth = deepest; depth >= 1; depth -= 1) {
    const entries = rollUp(files, depth);
    if (entries.length <= max) return { entries, rolledUpTo: depth };
  }
  const whole: FileEntry = { path: './', covered: 0, coverable: 0 };
  for (const file of files) add(whole, file);
  return { entries: [whole], rolledUpTo: 0 };
}

/** Adds a file's counts to a folder's, patch and branch counts included when the file has them. */
function add(folder: FileEntry, file: FileEntry): void {
  folder.covered += file.covered;
  folder.coverable += file.coverable;
  if (file.branches !== undefined) {
    const sum = folder.branches ?? { covered: 0, total: 0 };
    folder.branches = {
      covered: sum.covered + file.branches.covered,
      total: sum.total + file.branches.total,
    };
  }
  if (file.patch_coverable === undefined) return;
  folder.patch_covered = (folder.patch_covered ?? 0) + (file.patch_covered ?? 0);
  folder.patch_coverable = (folder.patch_coverable ?? 0) + file.patch_coverable;
}

/**
 * Files in fewer than `depth` folders as they are; every other file summed into its ancestor
 * folder `depth` folders deep, so a folder entry holds all of that folder (and the patch
 * counts of its files that have them).
 */
function rollUp(files: readonly FileEntry[], depth: number): FileEntry[] {
  const byPath = new Map<string, FileEntry>();
  for (const file of files) {
    const parts = file.path.split('/');
    const path = parts.length - 1 >= depth ? `${parts.slice(0, depth).join('/')}/` : file.path;
    if (path === file.path) {
      byPath.set(path, { ...file });
      continue;
    }
    let folder = byPath.get(path);
    if (!folder) {
      folder = { path, covered: 0, coverable: 0 };
      byPath.set(path, folder);
    }
    add(folder, file);
  }
  return sorted([...byPath.values()]);
}

function sorted(entries: FileEntry[]): FileEntry[] {
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
