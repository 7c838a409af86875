import { describe, expect, it } from 'vitest';
import { encodeLineData, encodeRanges } from '../../src/executions/line-data.js';
import type { FileLines } from '../../src/executions/run-lines.js';
import {
  MISSED_LINES_MARKER,
  missedPatchLines,
  withMissedLines,
} from '../../src/outbox/comment-missed-lines.js';

/** A file's stored lines from plain line numbers. */
function file(
  path: string,
  coverable: number[],
  covered: number[],
  patch: number[] | null,
): FileLines {
  return {
    path,
    lines: encodeLineData({ coverable, covered }),
    patch: patch === null ? null : encodeRanges(patch),
  };
}

const range = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => first + i);

const RUN_URL = 'https://covgate.example.com/repos/web/runs/exe_1';
const BODY = `head\n${MISSED_LINES_MARKER}\nfoot`;

describe("the comment's changed lines not covered", () => {
  it('lists per file the changed coverable lines no test ran, as ranges, most missed first', () => {
    const missed = missedPatchLines([
      // Lines 1-20 coverable; 12-14 and 20 missed; the patch changes 10-20 and line 30 (blank).
      file('src/a.ts', range(1, 20), [...range(1, 11), ...range(15, 19)], [...range(10, 20), 30]),
      // Five changed lines missed, one range: listed first.
      file('src/b.ts', [2, 3, 4, 5, 6, 8], [8], [2, 3, 4, 5, 6, 8]),
      // Missed lines, but none changed: not listed.
      file('src/c.ts', [1, 2], [], [7]),
      // No patch sent for this file.
      file('src/d.ts', [1], [], null),
    ]);
    expect(missed).toEqual([
      { path: 'src/b.ts', ranges: [[2, 6]], lines: 5 },
      {
        path: 'src/a.ts',
        ranges: [
          [12, 14],
          [20, 20],
        ],
        lines: 4,
      },
    ]);
    expect(withMissedLines(BODY, missed, RUN_URL)).toBe(
      [
        'head',
        '**Changed lines not covered** (9 lines in 2 files)',
        '',
        `- [\`src/b.ts\`](${RUN_URL}/files/src%2Fb.ts): 2-6`,
        `- [\`src/a.ts\`](${RUN_URL}/files/src%2Fa.ts): 12-14, 20`,
        '',
        'foot',
      ].join('\n'),
    );
  });

  it('orders files with as many missed lines by path, and names files without a link when no run URL is known', () => {
    const missed = missedPatchLines([
      file('z.py', [1], [], [1]),
      file('a b (old).py', [4], [], [4]),
    ]);
    expect(withMissedLines(BODY, missed, null).split('\n').slice(1, 5)).toEqual([
      '**Changed lines not covered** (2 lines in 2 files)',
      '',
      '- `a b (old).py`: 4',
      '- `z.py`: 1',
    ]);
    expect(withMissedLines(BODY, missed, RUN_URL).split('\n')[3]).toBe(
      `- [\`a b (old).py\`](${RUN_URL}/files/a%20b%20%28old%29.py): 4`,
    );
  });

  it('lists at most 10 files and 20 ranges a file, then says how many more', () => {
    const every = (n: number) => range(1, n).map((k) => 2 * k);
    const files = [
      file('big.ts', every(25), [], every(25)),
      ...range(1, 11).map((k) => file(`f${String(k).padStart(2, '0')}.ts`, [1], [], [1])),
    ];
    const text = withMissedLines(BODY, missedPatchLines(files), null).split('\n');
    expect(text.slice(1, 3)).toEqual(['**Changed lines not covered** (36 lines in 12 files)', '']);
    expect(text[3]).toBe(`- \`big.ts\`: ${every(20).join(', ')} and 5 more ranges`);
    expect(text.slice(4)).toEqual([
      ...range(1, 9).map((k) => `- \`f0${k}.ts\`: 1`),
      '- …and 2 more files (2 lines).',
      '',
      'foot',
    ]);
  });

  it('says every changed line that can run is covered when none is missed', () => {
    const missed = missedPatchLines([file('src/a.ts', [1, 2], [1, 2], [2, 3])]);
    expect(missed).toEqual([]);
    expect(withMissedLines(BODY, missed, RUN_URL)).toBe(
      'head\nEvery changed line that can run is covered.\n\nfoot',
    );
  });

  it('leaves the comment as before line data when the run sent no lines of a patch', () => {
    expect(missedPatchLines([file('src/a.ts', [1], [], null)])).toBeNull();
    expect(missedPatchLines([])).toBeNull();
    expect(withMissedLines(BODY, null, RUN_URL)).toBe('head\nfoot');
    expect(withMissedLines('no marker', [], RUN_URL)).toBe('no marker');
  });
});
