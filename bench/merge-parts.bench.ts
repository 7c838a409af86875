/**
 * Merging the parts of one commit (issue 37): what the ingest of the last of 8 parts does
 * besides parsing and checking its body, in process, on a 20 000-file repository whose every
 * part lists every file (Go's `-coverpkg=./...`, a coverage tool's "all files"): compress the
 * part's upload, inflate the 7 stored uploads, merge the 8 line by line (`mergeCommitReport`),
 * and compress the merged file list and line data. Goal: at most 300 ms.
 *
 * Each file has about 40 coverable lines (20 to 60, ranges of 1 to 8 with gaps of 1 to 6, as
 * bench/ingest-lines.mjs lays them out: 800 000 a part); each part covers each line with
 * probability 0.3 (a shard runs a few of the tests), in runs.
 *
 * Run: pnpm vitest bench --run bench/merge-parts.bench.ts
 * Results: bench/RESULTS.md, section "Parts of one commit".
 */
import { bench, describe } from 'vitest';
import {
  mergeCommitReport,
  type PartFileLines,
} from '../packages/core/src/executions/commit-report.js';
import { encodeFileList, fileListText } from '../packages/core/src/executions/file-list.js';
import {
  decodeRunLines,
  encodeRunLines,
  runLinesText,
} from '../packages/core/src/executions/run-lines.js';

const FILES = 20_000;
const PARTS = 8;

/** mulberry32: a small deterministic generator, so every run measures the same parts. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Each file's coverable ranges, the same in every part (one checkout). */
function coverableOf(next: () => number): { ranges: number[]; count: number } {
  const target = Math.max(1, Math.round(40 * (0.5 + next())));
  const ranges: number[] = [];
  let count = 0;
  while (count < target) {
    const gap = (ranges.length === 0 ? 1 : 2) + Math.floor(next() * 5);
    const length = Math.min(target - count, 1 + Math.floor(next() * 8));
    ranges.push(gap, length);
    count += length;
  }
  return { ranges, count };
}

/** Covered/missed runs over `count` lines, covered first, a line covered with about `p`. */
function coveredRuns(next: () => number, count: number, p: number): number[] {
  const runs: number[] = [];
  let hit = true;
  let run = 0;
  for (let line = 0; line < count; line += 1) {
    const isHit: boolean = next() < (hit ? p + 0.3 : p - 0.1);
    if (isHit !== hit) {
      runs.push(run);
      hit = isHit;
      run = 0;
    }
    run += 1;
  }
  runs.push(run);
  return runs;
}

const layout = random(1);
const paths = Array.from(
  { length: FILES },
  (_, i) =>
    `packages/pkg-${String(i % 40).padStart(2, '0')}/src/module-${String(Math.floor(i / 40) % 1000).padStart(4, '0')}/file-${String(i % 97).padStart(2, '0')}-${i}.ts`,
).sort();
const coverable = paths.map(() => coverableOf(layout));
const parts: PartFileLines[][] = Array.from({ length: PARTS }, (_, part) => {
  const next = random(100 + part);
  return paths.map((path, i) => ({
    path,
    lines: {
      coverable: coverable[i]!.ranges,
      covered: coveredRuns(next, coverable[i]!.count, 0.3),
    },
    // Every 100th file is in the pull request's patch: its first 12 lines.
    patch: i % 100 === 0 ? [1, 12] : null,
  }));
});
const stored = await Promise.all(
  parts.slice(0, PARTS - 1).map((part) => encodeRunLines(runLinesText(part))),
);
const last = parts[PARTS - 1]!;

const sizes = {
  upload: stored[0]!.byteLength,
  lines: coverable.reduce((sum, file) => sum + file.count, 0),
};
console.log(
  `[merge-parts] ${FILES} files, ${sizes.lines} coverable lines a part, ${PARTS} parts; one stored upload ${(sizes.upload / 1024).toFixed(0)} KiB`,
);

describe(`the last of ${PARTS} parts of a ${FILES}-file commit`, () => {
  bench(
    'store its upload, read the 7 others, merge the 8, store the merged report',
    async () => {
      const upload = encodeRunLines(runLinesText(last));
      const others = await Promise.all(stored.map((bytes) => decodeRunLines(bytes)));
      const merged = mergeCommitReport([...others, last]);
      await Promise.all([
        upload,
        encodeFileList(fileListText(merged.files)),
        encodeRunLines(runLinesText(merged.lines)),
      ]);
    },
    { iterations: 15, warmupIterations: 2, time: 0 },
  );

  bench(
    'read the 7 stored uploads alone (inflate, JSON.parse)',
    async () => {
      await Promise.all(stored.map((bytes) => decodeRunLines(bytes)));
    },
    { iterations: 15, warmupIterations: 2, time: 0 },
  );

  const merged = mergeCommitReport(parts);
  bench(
    'store the merged report alone (JSON text, deflate level 1)',
    async () => {
      await Promise.all([
        encodeFileList(fileListText(merged.files)),
        encodeRunLines(runLinesText(merged.lines)),
      ]);
    },
    { iterations: 15, warmupIterations: 2, time: 0 },
  );

  bench(
    'mergeCommitReport of the 8 alone',
    async () => {
      mergeCommitReport(parts);
    },
    { iterations: 15, warmupIterations: 2, time: 0 },
  );
});
