import { describe, expect, it } from 'vitest';
import type { FileEntry } from '../../src/executions/file-list.js';
import { patchFiles } from '../../src/executions/patch-files.js';

describe('patchFiles', () => {
  it('lists the entries with coverable patch lines, most missed first, then by path', () => {
    const files: FileEntry[] = [
      { path: 'a.ts', covered: 9, coverable: 9, patchCovered: 3, patchCoverable: 3 },
      { path: 'b.ts', covered: 1, coverable: 9, patchCovered: 1, patchCoverable: 3 },
      { path: 'c.ts', covered: 0, coverable: 9 },
      { path: 'd/', covered: 2, coverable: 9, patchCovered: 0, patchCoverable: 2 },
      { path: 'e.ts', covered: 2, coverable: 9, patchCovered: 0, patchCoverable: 0 },
      { path: 'f.ts', covered: 1, coverable: 3, patchCovered: 1, patchCoverable: 3 },
    ];
    expect(patchFiles(files)).toEqual([
      { path: 'b.ts', patch_covered: 1, patch_coverable: 3, patch_percent: 33.33 },
      { path: 'd/', patch_covered: 0, patch_coverable: 2, patch_percent: 0 },
      { path: 'f.ts', patch_covered: 1, patch_coverable: 3, patch_percent: 33.33 },
      { path: 'a.ts', patch_covered: 3, patch_coverable: 3, patch_percent: 100 },
    ]);
  });

  it('is null for a list without patch counts, and empty when they cover no coverable line', () => {
    expect(patchFiles([{ path: 'a.ts', covered: 1, coverable: 2 }])).toBeNull();
    expect(patchFiles([])).toBeNull();
    expect(
      patchFiles([{ path: 'a.ts', covered: 1, coverable: 2, patchCovered: 0, patchCoverable: 0 }]),
    ).toEqual([]);
  });
});
