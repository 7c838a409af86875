import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeLineData } from '../../src/executions/line-data.js';
import {
  decodeRunLines,
  encodeRunLines,
  type FileLines,
  findFileLines,
  runLinesText,
} from '../../src/executions/run-lines.js';

/** `count` files of 40 coverable lines in ranges, some covered, every third with a patch. */
function files(count: number): FileLines[] {
  return Array.from({ length: count }, (_, index) => {
    const coverable = Array.from({ length: 40 }, (_, line) => 3 + line * 2 + (index % 5));
    const covered = coverable.filter((line) => (line + index) % 3 !== 0);
    return {
      path: `src/module-${String(index).padStart(6, '0')}/file.ts`,
      lines: encodeLineData({ coverable, covered }),
      patch: index % 3 === 0 ? [4, 6, 10, 1] : null,
    };
  });
}

describe("a run's stored line data", () => {
  it('reads back every file, in order, as given', async () => {
    const given = files(5_000);
    const stored = await encodeRunLines(runLinesText(given));
    expect(runLinesText(given).chunks.length).toBeGreaterThan(10);
    expect(await decodeRunLines(stored)).toEqual(given);
  });

  it("finds one file's lines, and null for a path it does not hold", async () => {
    const given = files(5_000);
    const stored = await encodeRunLines(runLinesText(given));
    for (const index of [0, 1, 2_499, 4_999]) {
      expect(await findFileLines(stored, given[index]!.path)).toEqual(given[index]);
    }
    expect(await findFileLines(stored, 'a.ts')).toBeNull();
    expect(await findFileLines(stored, 'src/module-000001/file.tsx')).toBeNull();
    expect(await findFileLines(stored, 'z.ts')).toBeNull();
  });

  it('keeps a run of one file, and of none', async () => {
    const one = files(1);
    expect(await decodeRunLines(await encodeRunLines(runLinesText(one)))).toEqual(one);
    expect(await decodeRunLines(await encodeRunLines(runLinesText([])))).toEqual([]);
    expect(await findFileLines(await encodeRunLines(runLinesText([])), 'a')).toBeNull();
  });

  it('takes at most 1.5 times the gzip of its JSON, the goal', async () => {
    const given = files(20_000);
    const stored = await encodeRunLines(runLinesText(given));
    const gzipped = gzipSync(JSON.stringify(given)).length;
    expect(stored.length / gzipped).toBeLessThan(1.5);
  });

  it('refuses bytes it did not write', async () => {
    await expect(decodeRunLines(new Uint8Array([1, 2, 3, 4, 0, 0, 0, 0]))).rejects.toThrow(
      'not stored line data',
    );
  });
});
