import { describe, expect, it } from 'vitest';
import { fileChanges, MAX_CHANGED_FILES } from '../../src/executions/file-changes.js';
import { entry } from '../support/file-entry.js';

describe('fileChanges', () => {
  it('lists lost files first, then gained, then added and removed, each by path', () => {
    const baseline = [
      entry('gained.ts', 1, 4),
      entry('lost-a.ts', 2, 3),
      entry('lost-b.ts', 3, 3),
      entry('removed.ts', 1, 2),
      entry('same.ts', 1, 2),
      entry('emptied.ts', 1, 2),
    ].sort((a, b) => (a.path < b.path ? -1 : 1));
    const run = [
      entry('added.ts', 0, 0),
      entry('emptied.ts', 0, 0),
      entry('gained.ts', 3, 4),
      entry('lost-a.ts', 1, 3),
      entry('lost-b.ts', 2, 3),
      entry('same.ts', 2, 4),
    ];
    const row = (
      path: string,
      now: [number, number, number | null] | null,
      before: [number, number, number | null] | null,
      change: number | null,
    ) => ({
      path,
      covered: now?.[0] ?? null,
      coverable: now?.[1] ?? null,
      percent: now?.[2] ?? null,
      baseline_covered: before?.[0] ?? null,
      baseline_coverable: before?.[1] ?? null,
      baseline_percent: before?.[2] ?? null,
      change,
    });
    expect(fileChanges('exe_base', run, baseline)).toEqual({
      baseline_id: 'exe_base',
      total: 6,
      truncated: false,
      files: [
        // 33.33 - 100: the percentages truncated to hundredths, subtracted exactly.
        row('lost-b.ts', [2, 3, 66.66], [3, 3, 100], -33.34),
        row('lost-a.ts', [1, 3, 33.33], [2, 3, 66.66], -33.33),
        row('gained.ts', [3, 4, 75], [1, 4, 25], 50),
        row('added.ts', [0, 0, null], null, null),
        row('emptied.ts', [0, 0, null], [1, 2, 50], null),
        row('removed.ts', null, [1, 2, 50], null),
      ],
    });
  });

  it('keeps the first 1 000 of more changed files and says how many there were', () => {
    const names = Array.from({ length: 1_005 }, (_, i) => `f${String(i).padStart(5, '0')}.ts`);
    const changes = fileChanges(
      'exe_base',
      names.map((path, i) => entry(path, i % 2, 1)),
      names.map((path, i) => entry(path, 1 - (i % 2), 1)),
    );
    expect(changes.total).toBe(1_005);
    expect(changes.truncated).toBe(true);
    expect(changes.files).toHaveLength(MAX_CHANGED_FILES);
    // 503 lost (-100) first, then 502 gained (+100), of which 497 fit.
    expect(changes.files[0]).toMatchObject({ path: 'f00000.ts', change: -100 });
    expect(changes.files[502]).toMatchObject({ path: 'f01004.ts', change: -100 });
    expect(changes.files[503]).toMatchObject({ path: 'f00001.ts', change: 100 });
    expect(changes.files.at(-1)).toMatchObject({ path: 'f00993.ts', change: 100 });
  });

  it('has nothing to list when every file kept its percent', () => {
    expect(fileChanges('exe_base', [entry('a', 1, 2)], [entry('a', 2, 4)])).toEqual({
      baseline_id: 'exe_base',
      total: 0,
      truncated: false,
      files: [],
    });
  });
});
