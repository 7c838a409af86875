import { checkLineData } from '@covgate/core/internal';
import { describe, expect, it } from 'vitest';
import { lineEntries } from '../src/patch/file-lines.js';
import { parseReport } from '../src/reports/read-report.js';

describe("the files entries' line data", () => {
  it('sends the lines of an lcov file and its changed lines, adjacent hunks joined', () => {
    const report = parseReport('SF:a.js\nDA:1,1\nDA:2,0\nDA:3,1\nDA:7,2\nend_of_record\n');
    const changed = new Map([
      [
        'a.js',
        [
          { start: 2, count: 2 },
          { start: 4, count: 1 },
          { start: 9, count: 3 },
        ],
      ],
    ]);
    expect(lineEntries(report.files, changed)).toEqual([
      {
        path: 'a.js',
        covered: 3,
        coverable: 4,
        lines: { coverable: [1, 3, 4, 1], covered: [1, 1, 2] },
        patch_lines: [2, 3, 5, 3],
      },
    ]);
  });

  it("counts a Go file's lines, not its statements, so the counts agree with the lines", () => {
    // Lines 1-3: 2 statements, run; lines 3-5: 4 statements, not run; line 3 has both blocks.
    const report = parseReport('mode: set\nx/a.go:1.1,3.2 2 1\nx/a.go:3.4,5.2 4 0\n', 'go');
    expect(report.files[0]).toMatchObject({ covered: 2, coverable: 6 });
    const [entry] = lineEntries(report.files, null);
    expect(entry).toEqual({
      path: 'x/a.go',
      covered: 2,
      coverable: 5,
      lines: { coverable: [1, 5], covered: [2, 3] },
    });
    expect(checkLineData(entry!.lines!, entry!, null)).toMatchObject({ covered: 2, coverable: 5 });
  });

  it('sends a file known by its counts only as its counts', () => {
    const report = parseReport('SF:a.js\nLF:10\nLH:4\nend_of_record\n', 'lcov');
    expect(lineEntries(report.files, new Map([['a.js', [{ start: 1, count: 1 }]]]))).toEqual([
      { path: 'a.js', covered: 4, coverable: 10 },
    ]);
  });

  it('sorts the entries by path', () => {
    const report = parseReport('SF:b.js\nDA:1,1\nend_of_record\nSF:a.js\nDA:1,0\nend_of_record\n');
    expect(lineEntries(report.files, null).map((entry) => entry.path)).toEqual(['a.js', 'b.js']);
  });
});
