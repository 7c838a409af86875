import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { resultsCachePath, SLOW_FILE_MS, slowFilesFromResults } from '../../scripts/slow-files.mjs';
import { readSlowFiles, slowestFirst } from './slowest-first.js';
import { SlowestFirstSequencer } from './slowest-first-sequencer.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const checkedIn = join(repo, 'test', 'slow-files.json');

describe('slowest test files first', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'covgate-slow-files-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('puts files of a known duration first, longest first, then the others in their order', () => {
    const durations = new Map([
      ['b', 3_000],
      ['d', 120_000],
      ['f', 3_000],
    ]);
    expect(slowestFirst(['a', 'b', 'c', 'd', 'e', 'f'], (file) => durations.get(file))).toEqual([
      'd',
      'b',
      'f',
      'a',
      'c',
      'e',
    ]);
  });

  it('reads the list in seconds as milliseconds by path', async () => {
    const list = join(dir, 'list.json');
    await writeFile(list, '{ "test/a.test.ts": 231, "test/b.test.ts": 0.5 }');
    expect(readSlowFiles(list)).toEqual(
      new Map([
        ['test/a.test.ts', 231_000],
        ['test/b.test.ts', 500],
      ]),
    );
    await writeFile(list, '{}');
    expect(readSlowFiles(list)).toEqual(new Map());
  });

  it('refuses a list that is not an object of paths to seconds, naming the file', async () => {
    const list = join(dir, 'bad.json');
    for (const text of ['[]', '{ "a.test.ts": "231" }', '{ "a.test.ts": -1 }', 'null', '5']) {
      await writeFile(list, text);
      expect(() => readSlowFiles(list)).toThrow(
        `${list}: expected an object of test file paths to seconds`,
      );
    }
    await writeFile(list, '{ "a.test.ts": 1');
    expect(() => readSlowFiles(list)).toThrow(new RegExp(`^${list}: .*JSON`));
  });

  it('lists from the results cache the passed files of 5 s or more, longest first', () => {
    expect(SLOW_FILE_MS).toBe(5_000);
    expect(
      slowFilesFromResults([
        [':test/fast.test.ts', { duration: 4_999, failed: false }],
        [':test/edge.test.ts', { duration: 5_000, failed: false }],
        [':test/tarballs.test.ts', { duration: 231_150.4, failed: false }],
        [':test/failed.test.ts', { duration: 90_000, failed: true }],
        ['other:test/project.test.ts', { duration: 60_000, failed: false }],
        [':test/b-outbox.test.ts', { duration: 104_400, failed: false }],
        [':test/a-browser.test.ts', { duration: 103_600, failed: false }],
      ]),
    ).toEqual({
      'test/tarballs.test.ts': 231,
      'test/a-browser.test.ts': 104,
      'test/b-outbox.test.ts': 104,
      'test/edge.test.ts': 5,
    });
  });

  it("reads vitest's results cache of the default project", () => {
    expect(resultsCachePath('/repo')).toBe(
      '/repo/node_modules/.vite/vitest/da39a3ee5e6b4b0d3255bfef95601890afd80709/results.json',
    );
  });

  it('checks in a list of test files that exist, longest first', () => {
    const listed = [...readSlowFiles(checkedIn)];
    expect(listed.length).toBeGreaterThan(0);
    expect(
      listed.filter(([path]) => !path.endsWith('.test.ts') || !existsSync(join(repo, path))),
    ).toEqual([]);
    const seconds = listed.map(([, ms]) => ms);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
  });

  it('orders by the results cache, else by the checked-in list, then the rest by size', async () => {
    const cached = new Map([[':test/action/action.test.ts', { duration: 400_000, failed: false }]]);
    const sizes = new Map([
      [':test/small.test.ts', { size: 100 }],
      [':test/large.test.ts', { size: 9_000 }],
    ]);
    const fakeVitest = {
      config: { root: repo },
      cache: {
        getFileTestResults: (key: string) => cached.get(key),
        getFileStats: (key: string) => sizes.get(key) ?? { size: 1_000 },
      },
    } as unknown as Vitest;
    const project = { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } };
    const spec = (path: string) =>
      ({ moduleId: join(repo, path), project }) as unknown as TestSpecification;
    const paths = [
      'test/small.test.ts',
      'packages/cli/test/e2e.test.ts',
      'test/large.test.ts',
      'test/packages/tarballs.test.ts',
      'test/action/action.test.ts',
    ];
    const sorted = await new SlowestFirstSequencer(fakeVitest).sort(paths.map(spec));
    expect(sorted.map((each) => each.moduleId.slice(repo.length))).toEqual([
      'test/action/action.test.ts',
      'test/packages/tarballs.test.ts',
      'packages/cli/test/e2e.test.ts',
      'test/large.test.ts',
      'test/small.test.ts',
    ]);
  });
});
