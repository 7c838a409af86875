import { describe, expect, it } from 'vitest';
import { encodeLineData, encodeRanges } from '../../src/executions/line-data.js';
import { checkLineData, MAX_LINE_NUMBER } from '../../src/executions/line-data-check.js';

/** Counts and patch counts of line numbers, worked out by brute force. */
function expected(coverable: number[], covered: number[], patch: number[]) {
  return {
    covered: covered.length,
    coverable: coverable.length,
    patchCovered: patch.filter((line) => covered.includes(line)).length,
    patchCoverable: patch.filter((line) => coverable.includes(line)).length,
  };
}

describe("checking a file's line data", () => {
  it('gives the counts and the patch counts of valid data', () => {
    const coverable = [3, 4, 5, 9, 12, 13, 40];
    const covered = [4, 5, 40];
    const patch = [1, 2, 3, 4, 9, 10, 11, 12, 40, 41];
    expect(
      checkLineData(encodeLineData({ coverable, covered }), { covered: 3, coverable: 7 }, [
        ...encodeRanges(patch),
      ]),
    ).toEqual(expected(coverable, covered, patch));
  });

  it('agrees with brute force on random files', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let round = 0; round < 200; round += 1) {
      const coverable: number[] = [];
      const covered: number[] = [];
      const patch: number[] = [];
      for (let line = 1; line <= 60; line += 1) {
        if (random() < 0.5) {
          coverable.push(line);
          if (random() < 0.5) covered.push(line);
        }
        if (random() < 0.3) patch.push(line);
      }
      const counts = { covered: covered.length, coverable: coverable.length };
      expect(
        checkLineData(encodeLineData({ coverable, covered }), counts, encodeRanges(patch)),
      ).toEqual(expected(coverable, covered, patch));
    }
  });

  it('gives null patch counts without patch lines, and zeros for an empty file', () => {
    expect(
      checkLineData({ coverable: [], covered: [] }, { covered: 0, coverable: 0 }, null),
    ).toEqual({ covered: 0, coverable: 0, patchCovered: null, patchCoverable: null });
    expect(
      checkLineData({ coverable: [], covered: [] }, { covered: 0, coverable: 0 }, [5, 2]),
    ).toEqual({ covered: 0, coverable: 0, patchCovered: 0, patchCoverable: 0 });
  });

  it('checks a range of ten million lines without expanding it', () => {
    const started = performance.now();
    expect(
      checkLineData(
        { coverable: [1, MAX_LINE_NUMBER], covered: [MAX_LINE_NUMBER] },
        { covered: MAX_LINE_NUMBER, coverable: MAX_LINE_NUMBER },
        [1, MAX_LINE_NUMBER],
      ),
    ).toEqual({
      covered: MAX_LINE_NUMBER,
      coverable: MAX_LINE_NUMBER,
      patchCovered: MAX_LINE_NUMBER,
      patchCoverable: MAX_LINE_NUMBER,
    });
    expect(performance.now() - started).toBeLessThan(50);
  });

  it.each([
    [
      { coverable: [1, 2, 1, 1], covered: [3] },
      3,
      3,
      null,
      'lines',
      'coverable: range 2 is not after the previous one (gap 1; ascending ranges, adjacent ones joined)',
    ],
    [
      { coverable: [1, 3], covered: [3] },
      3,
      4,
      null,
      'lines',
      '3 coverable lines listed, but coverable is 4',
    ],
    [
      { coverable: [1, 3], covered: [2] },
      3,
      3,
      null,
      'lines',
      'covered: the runs cover 2 of the 3 coverable lines',
    ],
    [
      { coverable: [1, 3], covered: [2, 2] },
      2,
      3,
      null,
      'lines',
      'covered: the runs go past the coverable lines',
    ],
    [
      { coverable: [1, 3], covered: [1, 0, 2] },
      1,
      3,
      null,
      'lines',
      'covered: run 2 is not a whole number above 0',
    ],
    [
      { coverable: [1, 3], covered: ['3'] },
      3,
      3,
      null,
      'lines',
      'covered: run 1 is not a whole number above 0',
    ],
    [
      { coverable: [1, 3], covered: [1, 2] },
      2,
      3,
      null,
      'lines',
      '1 covered lines listed, but covered is 2',
    ],
    [
      { coverable: [1, 3], covered: [3] },
      3,
      3,
      [2, 1, 1, 1],
      'patch_lines',
      'range 2 is not after the previous one (gap 1; ascending ranges, adjacent ones joined)',
    ],
    [
      { coverable: [1, 3], covered: [3] },
      3,
      3,
      [MAX_LINE_NUMBER, 2],
      'patch_lines',
      `range 1 goes past line ${MAX_LINE_NUMBER}`,
    ],
  ])(
    'refuses %j (covered %i, coverable %i, patch %j): %s, %s',
    (encoded, covered, coverable, patch, field, problem) => {
      expect(checkLineData(encoded, { covered, coverable }, patch)).toEqual({ field, problem });
    },
  );
});
