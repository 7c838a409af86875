import type { FileLineCounts } from '@covgate/client';
import { percentOf } from './run-format.js';
import type { TreeFolder } from './run-types.js';

/** The folder holding a path: `src/a/` for `src/a/b.ts` and for `src/a/b/`; `''` at the top. */
export function parentOf(path: string): string {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  const slash = trimmed.lastIndexOf('/');
  return slash === -1 ? '' : trimmed.slice(0, slash + 1);
}

/** The last segment of a path, a folder's with its `/`: `b.ts`, `b/`. */
export function nameOf(path: string): string {
  return path.slice(parentOf(path).length);
}

/** The run's folders and files, grouped by the folder that holds them. */
export interface FolderIndex {
  folders: Map<string, TreeFolder>;
  childFolders: Map<string, TreeFolder[]>;
  childFiles: Map<string, FileLineCounts[]>;
  /** Folders the run sent as one rolled-up entry (beyond the per-file bound): no files inside. */
  rolledUp: Set<string>;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Groups the API's folders (sorted by path) and files (sorted by path) by their folder in one
 * pass, keeping that order: children come out sorted by name without sorting again. A path
 * whose folder is missing from `tree` hangs under its nearest listed ancestor.
 */
export function indexFolders(tree: readonly TreeFolder[], files: readonly FileLineCounts[] | null) {
  const index: FolderIndex = {
    folders: new Map(tree.map((folder) => [folder.path, folder])),
    childFolders: new Map(),
    childFiles: new Map(),
    rolledUp: new Set(),
  };
  const holder = (path: string) => {
    let parent = parentOf(path);
    while (parent !== '' && !index.folders.has(parent)) parent = parentOf(parent);
    return parent;
  };
  for (const folder of tree)
    if (folder.path !== '') push(index.childFolders, holder(folder.path), folder);
  for (const file of files ?? []) {
    if (file.path.endsWith('/')) index.rolledUp.add(file.path);
    else push(index.childFiles, holder(file.path), file);
  }
  return index;
}

/** One line of the tree as shown: a folder, a file, or the button that shows more children. */
export type TreeRow =
  | {
      kind: 'folder';
      path: string;
      level: number;
      folder: TreeFolder;
      expanded: boolean;
      hasChildren: boolean;
      rolledUp: boolean;
    }
  | {
      kind: 'file';
      path: string;
      level: number;
      covered: number;
      coverable: number;
      percent: number | null;
      /** The file's branch counts, when the run sent them for it. */
      branches?: { covered: number; total: number };
    }
  | { kind: 'more'; path: string; level: number; folder: string; hidden: number };

/** How many children of a folder are shown before a "show more" line. */
export const CHILDREN_PAGE = 200;

function childCount(index: FolderIndex, path: string): number {
  return (index.childFolders.get(path)?.length ?? 0) + (index.childFiles.get(path)?.length ?? 0);
}

/**
 * The lines to draw: the children of the root, then, under each expanded folder, its children
 * (folders first, then files), at most `shown.get(folder) ?? CHILDREN_PAGE` of them followed
 * by a `more` line. Only expanded folders are visited, so a 50 000-file run costs what is on
 * screen.
 */
export function visibleRows(
  index: FolderIndex,
  expanded: ReadonlySet<string>,
  shown: ReadonlyMap<string, number> = new Map(),
): TreeRow[] {
  const rows: TreeRow[] = [];
  const walk = (path: string, level: number) => {
    const limit = shown.get(path) ?? CHILDREN_PAGE;
    let count = 0;
    for (const folder of index.childFolders.get(path) ?? []) {
      if (count >= limit) break;
      count++;
      const open = expanded.has(folder.path);
      rows.push({
        kind: 'folder',
        path: folder.path,
        level,
        folder,
        expanded: open,
        hasChildren: childCount(index, folder.path) > 0,
        rolledUp: index.rolledUp.has(folder.path),
      });
      if (open) walk(folder.path, level + 1);
    }
    for (const file of index.childFiles.get(path) ?? []) {
      if (count >= limit) break;
      count++;
      rows.push({
        kind: 'file',
        path: file.path,
        level,
        covered: file.covered,
        coverable: file.coverable,
        percent: percentOf(file.covered, file.coverable),
        ...(file.branches ? { branches: file.branches } : {}),
      });
    }
    const total = childCount(index, path);
    if (total > limit) {
      rows.push({
        kind: 'more',
        path: `${path}\u0000more`,
        level,
        folder: path,
        hidden: total - limit,
      });
    }
  };
  walk('', 1);
  return rows;
}
