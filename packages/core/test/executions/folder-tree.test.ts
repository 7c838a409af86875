import { describe, expect, it } from 'vitest';
import type { FileEntry } from '../../src/executions/file-list.js';
import { folderTree, MAX_TREE_FOLDERS } from '../../src/executions/folder-tree.js';
import { entry } from '../support/file-entry.js';

describe('folderTree', () => {
  it('sums every folder of the list, a rolled-up entry as its own folder, sorted by path', () => {
    const files = [
      entry('README.md', 0, 0),
      entry('src/api/a.ts', 1, 2),
      entry('src/api/b.ts', 2, 3),
      entry('src/main.ts', 1, 1),
      entry('vendor/lib/', 3, 9),
    ];
    expect(folderTree(files)).toEqual({
      folders: [
        { path: '', covered: 7, coverable: 15, percent: 46.66, files: 5 },
        { path: 'src/', covered: 4, coverable: 6, percent: 66.66, files: 3 },
        { path: 'src/api/', covered: 3, coverable: 5, percent: 60, files: 2 },
        { path: 'vendor/', covered: 3, coverable: 9, percent: 33.33, files: 1 },
        { path: 'vendor/lib/', covered: 3, coverable: 9, percent: 33.33, files: 1 },
      ],
      truncated: false,
    });
  });

  it('gives a folder of nothing coverable a null percent, and an empty list no folder', () => {
    expect(folderTree([entry('docs/a.md', 0, 0)]).folders).toEqual([
      { path: '', covered: 0, coverable: 0, percent: null, files: 1 },
      { path: 'docs/', covered: 0, coverable: 0, percent: null, files: 1 },
    ]);
    expect(folderTree([])).toEqual({ folders: [], truncated: false });
  });

  it('sums the branch counts of the entries that sent them, and gives a folder without any none', () => {
    const withBranches = (path: string, covered: number, total: number): FileEntry => ({
      ...entry(path, 1, 1),
      branchesCovered: covered,
      branchesTotal: total,
    });
    const { folders } = folderTree([
      entry('docs/a.md', 0, 0),
      withBranches('src/a.ts', 3, 4),
      withBranches('src/b.ts', 0, 0),
      withBranches('src/lib/c.ts', 8, 14),
    ]);
    expect(folders.map((folder) => [folder.path, folder.branches])).toEqual([
      ['', { covered: 11, total: 18, percent: 61.11 }],
      ['docs/', undefined],
      ['src/', { covered: 11, total: 18, percent: 61.11 }],
      ['src/lib/', { covered: 8, total: 14, percent: 57.14 }],
    ]);
    expect(folders[1]).not.toHaveProperty('branches');
  });

  it('keeps the shallowest 10 000 folders of a list with more', () => {
    // 101 top folders of 100 subfolders each: 1 + 101 + 10 100 folders.
    const files: FileEntry[] = [];
    for (let top = 0; top <= 100; top += 1) {
      for (let sub = 0; sub < 100; sub += 1) {
        files.push(
          entry(`t${String(top).padStart(3, '0')}/s${String(sub).padStart(3, '0')}/f.ts`, 1, 2),
        );
      }
    }
    const { folders, truncated } = folderTree(files);
    expect(truncated).toBe(true);
    expect(folders).toHaveLength(MAX_TREE_FOLDERS);
    expect(folders[0]).toEqual({
      path: '',
      covered: 10_100,
      coverable: 20_200,
      percent: 50,
      files: 10_100,
    });
    expect(folders.filter((folder) => folder.path.split('/').length === 2)).toHaveLength(101);
    // The 9 898 subfolders that fit are the first by path: t000/ to t097/ whole, 98 of t098/.
    expect(folders.slice(-3).map((folder) => folder.path)).toEqual([
      't098/s097/',
      't099/',
      't100/',
    ]);
  });
});
