import { linePercent } from '../gate/line-percent.js';
import { type BranchesJson, branchesToJson } from './execution-json.js';
import type { FileEntry } from './file-list.js';

/** Most folders a run detail's `tree` holds: the shallowest ones when a run has more. */
export const MAX_TREE_FOLDERS = 10_000;

/** One folder of a run's list with the sums of the entries under it. */
export interface FolderJson {
  /** The folder's path ending in `/`; the repository's root is `""`. */
  path: string;
  covered: number;
  coverable: number;
  /** covered / coverable truncated to hundredths; null when nothing is coverable. */
  percent: number | null;
  /** How many entries of the list are under the folder (a rolled-up folder counts as one). */
  files: number;
  /** The sums of the branch counts of the entries under it, when any of them sent some. */
  branches?: BranchesJson;
}

interface FolderSums {
  covered: number;
  coverable: number;
  files: number;
  /** Null until an entry under the folder carries branch counts. */
  branches: { covered: number; total: number } | null;
}

/**
 * Every folder of a run's list with the sums of the entries under it, sorted by path. A
 * rolled-up entry (`src/vendor/`) counts as its own folder and those above it. Beyond
 * {@link MAX_TREE_FOLDERS} folders, the shallowest are kept (`truncated` says so), so the
 * top of the tree is always whole.
 */
export function folderTree(files: readonly FileEntry[]): {
  folders: FolderJson[];
  truncated: boolean;
} {
  const sums = new Map<string, FolderSums>();
  // A sorted list keeps a folder's files together: its chain of folders is found once, and
  // the part it shares with the previous file's chain is kept.
  let lastFolder: string | null = null;
  let chainPaths: string[] = [];
  let chain: FolderSums[] = [];
  for (const file of files) {
    const folder = file.path.slice(0, file.path.lastIndexOf('/') + 1);
    if (folder !== lastFolder) {
      const paths = foldersOf(folder);
      chain = paths.map((path, depth) => {
        if (chainPaths[depth] === path) return chain[depth] as FolderSums;
        let folderSums = sums.get(path);
        if (folderSums === undefined) {
          folderSums = { covered: 0, coverable: 0, files: 0, branches: null };
          sums.set(path, folderSums);
        }
        return folderSums;
      });
      chainPaths = paths;
      lastFolder = folder;
    }
    for (const folderSums of chain) {
      folderSums.covered += file.covered;
      folderSums.coverable += file.coverable;
      folderSums.files += 1;
      if (file.branchesTotal !== undefined) {
        folderSums.branches ??= { covered: 0, total: 0 };
        folderSums.branches.covered += file.branchesCovered as number;
        folderSums.branches.total += file.branchesTotal;
      }
    }
  }
  let paths = [...sums.keys()];
  const truncated = paths.length > MAX_TREE_FOLDERS;
  if (truncated) paths = shallowest(paths, MAX_TREE_FOLDERS);
  return {
    folders: paths.sort(byCodeUnits).map((path) => {
      const { covered, coverable, files: count, branches } = sums.get(path) as FolderSums;
      const folder: FolderJson = {
        path,
        covered,
        coverable,
        percent: linePercent(covered, coverable),
        files: count,
      };
      if (branches !== null) folder.branches = branchesToJson(branches.covered, branches.total);
      return folder;
    }),
    truncated,
  };
}

/** `a/b/` -> `""`, `a/`, `a/b/`. */
function foldersOf(folder: string): string[] {
  const folders = [''];
  for (let index = folder.indexOf('/'); index !== -1; index = folder.indexOf('/', index + 1)) {
    folders.push(folder.slice(0, index + 1));
  }
  return folders;
}

/** The `count` folders with the fewest `/`, the first by path among those of one depth. */
function shallowest(paths: string[], count: number): string[] {
  const byDepth: string[][] = [];
  for (const path of paths) {
    let slashes = 0;
    for (let index = path.indexOf('/'); index !== -1; index = path.indexOf('/', index + 1)) {
      slashes += 1;
    }
    let level = byDepth[slashes];
    if (level === undefined) {
      level = [];
      byDepth[slashes] = level;
    }
    level.push(path);
  }
  const kept: string[] = [];
  for (const level of byDepth) {
    if (level === undefined) continue;
    if (kept.length + level.length <= count) {
      kept.push(...level);
      continue;
    }
    kept.push(...level.sort(byCodeUnits).slice(0, count - kept.length));
    break;
  }
  return kept;
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
