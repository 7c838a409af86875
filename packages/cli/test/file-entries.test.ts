import { describe, expect, it } from 'vitest';
import { fileEntries, withPatchCounts } from '../src/patch/file-entries.js';

const file = (path: string, covered = 1, coverable = 2) => ({ path, covered, coverable });

describe('fileEntries', () => {
  it('sends the files themselves, sorted by path, when they fit', () => {
    expect(fileEntries([file('b.ts'), file('a/x.ts')], 2)).toEqual({
      entries: [file('a/x.ts'), file('b.ts')],
      rolledUpTo: null,
    });
  });

  it('rolls the deepest files up into their folders, at the deepest depth that fits', () => {
    const files = [
      file('src/api/a.ts', 1, 2),
      file('src/api/b.ts', 2, 3),
      file('src/web/c.ts', 0, 4),
      file('src/main.ts', 1, 1),
      file('README.md', 0, 0),
    ];
    expect(fileEntries(files, 4)).toEqual({
      entries: [
        file('README.md', 0, 0),
        file('src/api/', 3, 5),
        file('src/main.ts', 1, 1),
        file('src/web/', 0, 4),
      ],
      rolledUpTo: 2,
    });
    expect(fileEntries(files, 3)).toEqual({
      entries: [file('README.md', 0, 0), file('src/', 4, 10)],
      rolledUpTo: 1,
    });
    expect(fileEntries(files, 1)).toEqual({ entries: [file('./', 4, 10)], rolledUpTo: 0 });
  });

  it('sums everything into ./ when even the top level does not fit', () => {
    expect(fileEntries([file('a.ts'), file('b.ts'), file('c/d.ts')], 2)).toEqual({
      entries: [file('./', 3, 6)],
      rolledUpTo: 0,
    });
  });

  it("gives a rolled-up folder the sums of its files' branch counts, and none without any", () => {
    const files = [
      { ...file('src/a.ts'), branches: { covered: 1, total: 4 } },
      { ...file('src/b.ts'), branches: { covered: 2, total: 2 } },
      file('src/c.go'),
      file('go/d.go'),
    ];
    expect(fileEntries(files, 2).entries).toEqual([
      file('go/', 1, 2),
      { ...file('src/', 3, 6), branches: { covered: 3, total: 6 } },
    ]);
  });

  it('rolls 60 000 files into at most 50 000 entries keeping every line', () => {
    const files = Array.from({ length: 60_000 }, (_, i) =>
      file(`pkg-${Math.floor(i / 600)}/module-${Math.floor(i / 3)}/f${i}.ts`, i % 3, 3),
    );
    const { entries, rolledUpTo } = fileEntries(files);
    expect(entries).toHaveLength(20_000);
    expect(entries[0]).toEqual(file('pkg-0/module-0/', 3, 9));
    expect(rolledUpTo).toBe(2);
    expect(entries.reduce((sum, e) => sum + e.coverable, 0)).toBe(180_000);
    expect(entries.reduce((sum, e) => sum + e.covered, 0)).toBe(60_000);
  });
});

describe('withPatchCounts', () => {
  it("adds the patch's counts to the files it has coverable lines in, and leaves the others", () => {
    const files = [file('src/a.go', 3, 4), file('src/b.ts', 2, 5), file('src/c.ts', 1, 1)];
    const patch = [
      { path: 'src/a.go', covered: 2, coverable: 6 },
      { path: 'src/b.ts', covered: 1, coverable: 3 },
    ];
    expect(withPatchCounts(files, patch)).toEqual([
      // A Go file's patch lines can outnumber its statements: it is sent without patch counts.
      file('src/a.go', 3, 4),
      { ...file('src/b.ts', 2, 5), patch_covered: 1, patch_coverable: 3 },
      file('src/c.ts', 1, 1),
    ]);
  });

  it('gives a rolled-up folder the sums of its files’ patch counts, and none without any', () => {
    const files = withPatchCounts(
      [file('src/api/a.ts', 1, 2), file('src/api/b.ts', 2, 3), file('src/web/c.ts', 0, 4)],
      [
        { path: 'src/api/a.ts', covered: 1, coverable: 2 },
        { path: 'src/api/b.ts', covered: 0, coverable: 1 },
      ],
    );
    expect(fileEntries(files, 2).entries).toEqual([
      { ...file('src/api/', 3, 5), patch_covered: 1, patch_coverable: 3 },
      file('src/web/', 0, 4),
    ]);
    expect(fileEntries(files, 1).entries).toEqual([
      { ...file('src/', 3, 9), patch_covered: 1, patch_coverable: 3 },
    ]);
  });
});
