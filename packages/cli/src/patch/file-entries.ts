/** Per-file line counts as the service takes them (`files` of `POST /v1/executions`). */
export interface FileEntry {
  path: string;
  covered: number;
  coverable: number;
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
  const covered = files.reduce((sum, file) => sum + file.covered, 0);
  const coverable = files.reduce((sum, file) => sum + file.coverable, 0);
  return { entries: [{ path: './', covered, coverable }], rolledUpTo: 0 };
}

/**
 * Files in fewer than `depth` folders as they are; every other file summed into its ancestor
 * folder `depth` folders deep, so a folder entry holds all of that folder.
 */
function rollUp(files: readonly FileEntry[], depth: number): FileEntry[] {
  const byPath = new Map<string, FileEntry>();
  for (const file of files) {
    const parts = file.path.split('/');
    const path = parts.length - 1 >= depth ? `${parts.slice(0, depth).join('/')}/` : file.path;
    const entry = byPath.get(path);
    if (entry) {
      entry.covered += file.covered;
      entry.coverable += file.coverable;
    } else {
      byPath.set(path, { path, covered: file.covered, coverable: file.coverable });
    }
  }
  return sorted([...byPath.values()]);
}

function sorted(entries: FileEntry[]): FileEntry[] {
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
