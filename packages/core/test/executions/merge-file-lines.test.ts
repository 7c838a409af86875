import { describe, expect, it } from 'vitest';
import {
  decodeRanges,
  encodeLineData,
  encodeRanges,
  type LineData,
} from '../../src/executions/line-data.js';
import { type FileLinesOfPart, mergeFileLines } from '../../src/executions/merge-file-lines.js';

/** mulberry32: the same cases on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A part of random lines among 1..`size` (at `offset` and beyond), with a patch or not. */
function partOf(next: () => number, size: number, offset = 0): FileLinesOfPart {
  const coverable: number[] = [];
  const covered: number[] = [];
  for (let line = 1; line <= size; line += 1) {
    if (next() < 0.5) {
      coverable.push(offset + line);
      if (next() < 0.5) covered.push(offset + line);
    }
  }
  const changed: number[] = [];
  for (let line = 1; line <= size; line += 1) if (next() < 0.2) changed.push(offset + line);
  return {
    lines: encodeLineData({ coverable, covered }),
    patch: next() < 0.5 ? encodeRanges(changed) : null,
  };
}

/** The merge as the rule says it, on arrays and sets. */
function reference(parts: FileLinesOfPart[], carried: FileLinesOfPart[]) {
  const decode = (part: FileLinesOfPart): LineData => {
    const lines = decodeRanges(part.lines.coverable) as number[];
    const covered: number[] = [];
    let at = 0;
    part.lines.covered.forEach((run, index) => {
      if (index % 2 === 0) for (let k = 0; k < run; k += 1) covered.push(lines[at + k]!);
      at += run;
    });
    return { coverable: lines, covered };
  };
  const withPatch = parts.some((part) => part.patch !== null);
  const changed = new Set<number>();
  for (const part of parts)
    if (part.patch !== null)
      for (const line of decodeRanges(part.patch) as number[]) changed.add(line);
  const coverable = new Set<number>();
  const covered = new Set<number>();
  for (const part of parts) {
    const data = decode(part);
    for (const line of data.coverable) coverable.add(line);
    for (const line of data.covered) covered.add(line);
  }
  for (const part of carried) {
    const data = decode(part);
    for (const line of data.coverable) if (!changed.has(line)) coverable.add(line);
    for (const line of data.covered) if (!changed.has(line)) covered.add(line);
  }
  const sorted = (set: Set<number>) => [...set].sort((a, b) => a - b);
  const merged = { coverable: sorted(coverable), covered: sorted(covered) };
  return {
    lines: encodeLineData(merged),
    patch: withPatch ? encodeRanges(sorted(changed)) : null,
    covered: covered.size,
    coverable: coverable.size,
    patchCoverable: withPatch ? merged.coverable.filter((l) => changed.has(l)).length : 0,
    patchCovered: withPatch ? merged.covered.filter((l) => changed.has(l)).length : 0,
  };
}

describe('merging one file’s lines from its parts', () => {
  it('unites two parts line by line, the patch counted on the merge', () => {
    // Part 1: lines 1-4 coverable, 1-2 covered; part 2: lines 3-6, 5 covered; patch 4-5.
    const one = { lines: { coverable: [1, 4], covered: [2, 2] }, patch: [4, 2] };
    const two = { lines: { coverable: [3, 4], covered: [0, 2, 1, 1] }, patch: null };
    expect(mergeFileLines([one, two])).toEqual({
      lines: { coverable: [1, 6], covered: [2, 2, 1, 1] },
      patch: [4, 2],
      covered: 3,
      coverable: 6,
      patchCoverable: 2,
      patchCovered: 1,
    });
  });

  it('gives what the rule on sets gives, in any order, on 500 random files', () => {
    const next = random(7);
    for (let round = 0; round < 500; round += 1) {
      const size = 1 + Math.floor(next() * 120);
      const parts = Array.from({ length: 1 + Math.floor(next() * 8) }, () => partOf(next, size));
      const carried = Array.from({ length: Math.floor(next() * 3) }, () => partOf(next, size));
      const expected = reference(parts, carried);
      expect(mergeFileLines(parts, carried), `round ${round}`).toEqual(expected);
      expect(mergeFileLines([...parts].reverse(), carried), `round ${round}`).toEqual(expected);
    }
  });

  it('merges lines far apart without a map of every line, alike', () => {
    const next = random(11);
    // A few lines near line 10 000 000 and a few at the top: a map would be ten million bytes.
    const parts = [partOf(next, 5), partOf(next, 5, 9_999_990), partOf(next, 5, 9_999_990)];
    const carried = [partOf(next, 5, 9_999_990)];
    expect(mergeFileLines(parts, carried)).toEqual(reference(parts, carried));
    // A map would scan ten million lines per call: 100 calls would take seconds.
    const started = performance.now();
    for (let call = 0; call < 100; call += 1) mergeFileLines(parts, carried);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
