import { describe, expect, it } from 'vitest';
import {
  decodeLineData,
  decodeRanges,
  encodeCovered,
  encodeLineData,
  encodeRanges,
  type LineData,
  MAX_LINE_NUMBER,
  mergeLineData,
} from '../../src/executions/line-data.js';

describe('the line data encoding', () => {
  it('writes coverable lines as gap, length ranges, adjacent lines joined', () => {
    expect(encodeRanges([3, 4, 5, 9, 12, 13])).toEqual([3, 3, 4, 1, 3, 2]);
    expect(encodeRanges([1])).toEqual([1, 1]);
    expect(encodeRanges([])).toEqual([]);
  });

  it('writes covered lines as runs over the coverable ones, covered first', () => {
    expect(encodeCovered([3, 4, 5, 9, 12, 13], [3, 4, 5, 9, 12, 13])).toEqual([6]);
    expect(encodeCovered([3, 4, 5, 9, 12, 13], [5, 9, 13])).toEqual([0, 2, 2, 1, 1]);
    expect(encodeCovered([3, 4], [])).toEqual([0, 2]);
    expect(encodeCovered([], [])).toEqual([]);
  });

  it('reads back what it wrote, checked against the counts', () => {
    const data: LineData = { coverable: [3, 4, 5, 9, 12, 13, 40], covered: [4, 5, 40] };
    const encoded = encodeLineData(data);
    expect(encoded).toEqual({ coverable: [3, 3, 4, 1, 3, 2, 27, 1], covered: [0, 1, 2, 3, 1] });
    expect(decodeLineData(encoded, { covered: 3, coverable: 7 })).toEqual(data);
  });

  it.each([
    [[3], 'an odd count of numbers (gap, length pairs)'],
    [
      [0, 2],
      'range 1 is not after the previous one (gap 0; ascending ranges, adjacent ones joined)',
    ],
    [
      [1, 2, 1, 1],
      'range 2 is not after the previous one (gap 1; ascending ranges, adjacent ones joined)',
    ],
    [
      [1, 2, -4, 1],
      'range 2 is not after the previous one (gap -4; ascending ranges, adjacent ones joined)',
    ],
    [[1, 0], 'range 1 is empty'],
    [[1.5, 1], 'range 1 is not two whole numbers'],
    [['1', 1], 'range 1 is not two whole numbers'],
    [[MAX_LINE_NUMBER, 2], `range 1 goes past line ${MAX_LINE_NUMBER}`],
  ])('refuses the ranges %j: %s', (ranges, problem) => {
    expect(decodeRanges(ranges)).toEqual({ problem });
  });

  it.each([
    [
      { coverable: [1, 3], covered: [3] },
      { covered: 3, coverable: 4 },
      '3 coverable lines listed, but coverable is 4',
    ],
    [
      { coverable: [1, 3], covered: [3] },
      { covered: 2, coverable: 3 },
      '3 covered lines listed, but covered is 2',
    ],
    [
      { coverable: [1, 3], covered: [2, 2] },
      { covered: 2, coverable: 3 },
      'covered: the runs go past the coverable lines',
    ],
    [
      { coverable: [1, 3], covered: [1] },
      { covered: 1, coverable: 3 },
      'covered: the runs cover 1 of the 3 coverable lines',
    ],
    [
      { coverable: [1, 3], covered: [1, 0, 2] },
      { covered: 3, coverable: 3 },
      'covered: run 2 is not a whole number above 0',
    ],
    [
      { coverable: [0, 3], covered: [3] },
      { covered: 3, coverable: 3 },
      'coverable: range 1 is not after the previous one (gap 0; ascending ranges, adjacent ones joined)',
    ],
  ])('refuses %j with counts %j: %s', (encoded, counts, problem) => {
    expect(decodeLineData(encoded, counts)).toEqual({ problem });
  });
});

describe('merging the line data of parts', () => {
  it('takes a line as coverable when any part lists it and covered when any part covers it', () => {
    const shard1: LineData = { coverable: [1, 2, 3, 5], covered: [1, 2] };
    const shard2: LineData = { coverable: [1, 2, 3, 5], covered: [2, 5] };
    // A part measured by another tool may list a line the others do not.
    const shard3: LineData = { coverable: [1, 2, 3, 4, 5], covered: [4] };
    expect(mergeLineData([shard1, shard2, shard3])).toEqual({
      coverable: [1, 2, 3, 4, 5],
      covered: [1, 2, 4, 5],
    });
    expect(mergeLineData([shard3, shard1, shard2])).toEqual(
      mergeLineData([shard1, shard2, shard3]),
    );
    expect(mergeLineData([shard1])).toEqual(shard1);
    expect(mergeLineData([])).toEqual({ coverable: [], covered: [] });
  });

  it('gives the whole run back from any split of its tests', () => {
    // A file of 200 coverable lines; each "test" covers a few; the whole run covers their union.
    const coverable = Array.from({ length: 200 }, (_, i) => 2 * i + 1);
    const tests = Array.from({ length: 12 }, (_, t) =>
      coverable.filter((line) => (line * (t + 3)) % 17 === 0),
    );
    const run = (subset: number[][]): LineData => ({
      coverable,
      covered: [...new Set(subset.flat())].sort((a, b) => a - b),
    });
    const whole = run(tests);
    const shards = [0, 1, 2].map((s) => run(tests.filter((_, t) => t % 3 === s)));
    expect(mergeLineData(shards)).toEqual(whole);
    const merged = encodeLineData(mergeLineData(shards));
    expect(decodeLineData(merged, { covered: whole.covered.length, coverable: 200 })).toEqual(
      whole,
    );
  });
});
