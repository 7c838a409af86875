import { mkdir, readFile, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PartsService } from '../../../test/support/built-parts-service.js';
import {
  createRepo,
  type DiffCoverReport,
  diffCover,
  diffCoverFigures,
  type TestRepo,
  toolAvailable,
} from './git-support.js';
import { inProcessService, mergedRun, postParts, reportInOneCall } from './shard-service.js';

// Jest 30 (the workspace's, as a project's `npm ci` installs it) run as a CI matrix of two
// jobs, `jest --shard=1/2` and `--shard=2/2`, on a pull request's branch: each job's report
// posted as a part through the CLI, and both downloaded into coverage-1/ and coverage-2/ and
// posted in one call. Compared with Jest's own figure of the unsharded run and with diff-cover
// on the unsharded report.

// The workspace root's Jest (a root dev dependency, installed with the lockfile).
const rootRequire = createRequire(new URL('../../../package.json', import.meta.url));
const jestDir = dirname(rootRequire.resolve('jest/package.json'));

const BASE: Record<string, string> = {
  'package.json': `${JSON.stringify({
    name: 'shards',
    private: true,
    jest: {
      testEnvironment: 'node',
      transform: {},
      collectCoverageFrom: ['src/**/*.js'],
      coverageReporters: ['lcov', 'json-summary', 'cobertura'],
    },
  })}\n`,
  '.gitignore': 'node_modules\ncoverage*\n.unsharded\n',
  'src/math.js':
    'function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add, sub };\n',
  'src/text.js':
    'function shout(s) {\n  return s.toUpperCase() + "!";\n}\n\nmodule.exports = { shout };\n',
  'test/add.test.js':
    "const { add } = require('../src/math.js');\ntest('adds', () => expect(add(1, 2)).toBe(3));\n",
  'test/shout.test.js':
    "const { shout } = require('../src/text.js');\ntest('shouts', () => expect(shout('a')).toBe('A!'));\n",
};

// The pull request: functions added to both files and a new one, some tested by one shard's
// files, some by the other's, some by none.
const FEATURE: Record<string, string> = {
  'src/math.js':
    'function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n\nfunction div(a, b) {\n  if (b === 0) {\n    throw new Error("division by zero");\n  }\n  return a / b;\n}\n\nfunction mul(a, b) {\n  const product = a * b;\n  return product;\n}\n\nmodule.exports = { add, sub, div, mul };\n',
  'src/text.js':
    'function shout(s) {\n  return s.toUpperCase() + "!";\n}\n\nfunction whisper(s) {\n  return s.toLowerCase();\n}\n\nfunction never(s) {\n  const t = s.trim();\n  return t.length;\n}\n\nmodule.exports = { shout, whisper, never };\n',
  'src/shapes.js':
    'function area(w, h) {\n  if (w < 0 || h < 0) {\n    return 0;\n  }\n  return w * h;\n}\n\nfunction perimeter(w, h) {\n  return 2 * (w + h);\n}\n\nmodule.exports = { area, perimeter };\n',
  'test/div.test.js':
    "const { div } = require('../src/math.js');\ntest('refuses 0', () => expect(() => div(1, 0)).toThrow());\n",
  'test/mul.test.js':
    "const { mul } = require('../src/math.js');\ntest('multiplies', () => expect(mul(2, 3)).toBe(6));\n",
  'test/whisper.test.js':
    "const { whisper } = require('../src/text.js');\ntest('whispers', () => expect(whisper('A')).toBe('a'));\n",
  'test/area.test.js':
    "const { area } = require('../src/shapes.js');\ntest('measures', () => expect(area(2, 3)).toBe(6));\n",
};

/** Jest's own figure of a run: its json-summary's line totals. */
interface Lines {
  covered: number;
  total: number;
  pct: number;
}

describe.skipIf(!toolAvailable('diff-cover', 'diff-cover'))(
  'two Jest shards of a pull request',
  () => {
    let repo: TestRepo;
    let service: PartsService;
    let unsharded: Lines;
    let reference: DiffCoverReport;
    const shards: Lines[] = [];
    const jest = (...args: string[]) =>
      repo.run(process.execPath, [join(jestDir, 'bin', 'jest.js'), '--ci', '--coverage', ...args]);
    const summaryOf = async (folder: string): Promise<Lines> =>
      JSON.parse(await readFile(join(repo.dir, folder, 'coverage-summary.json'), 'utf8')).total
        .lines;

    beforeAll(async () => {
      repo = await createRepo('shards-jest');
      await repo.write(BASE);
      await repo.commit('the library');
      await repo.git('checkout', '-q', '-b', 'feature');
      await repo.write(FEATURE);
      await repo.commit('more functions');
      await mkdir(join(repo.dir, 'node_modules'));
      await symlink(jestDir, join(repo.dir, 'node_modules', 'jest'));
      for (const i of [1, 2]) {
        await jest(`--shard=${i}/2`, `--coverageDirectory=coverage-${i}`);
        shards.push(await summaryOf(`coverage-${i}`));
      }
      await jest('--coverageDirectory=.unsharded');
      unsharded = await summaryOf('.unsharded');
      reference = await diffCover(repo, ['.unsharded/cobertura-coverage.xml'], 'main');
      service = await inProcessService();
    }, 240_000);
    afterAll(async () => {
      await service?.close();
      await repo?.remove();
    });

    it('made shards that each cover less than the whole run, and a patch with missed lines', () => {
      expect(unsharded.covered).toBeLessThan(unsharded.total);
      for (const shard of shards) expect(shard.covered).toBeLessThan(unsharded.covered);
      expect(reference.total_num_violations).toBeGreaterThan(0);
      expect(reference.total_num_lines).toBeGreaterThan(reference.total_num_violations);
    });

    it('posted as two parts: the merged run has Jest’s unsharded figure and diff-cover’s patch', async () => {
      const args = ['--repo', 'jest-lib', '--branch', 'feature', '--base-branch', 'main'];
      const [first, last] = await postParts(
        repo,
        service,
        [
          { report: 'coverage-2/lcov.info', part: 'shard-2' },
          { report: 'coverage-1/lcov.info', part: 'shard-1' },
        ],
        args,
      );
      expect(first?.code, first?.stderr).toBe(0);
      expect(JSON.parse(first?.stdout ?? '')).toMatchObject({ outcome: 'pending' });
      // The merged patch (10 of 15 lines) is under the default target of 80 %: the second part's
      // job fails on the patch rule, with the merged figure.
      const verdict = JSON.parse(last?.stdout ?? '');
      expect(last?.code, last?.stderr).toBe(1);
      expect(verdict).toMatchObject({
        outcome: 'fail',
        decided_by: 'patch rule',
        coverage: unsharded.pct,
        exit_code: 1,
      });
      const merged = await mergedRun(service, verdict.execution_id);
      expect(merged.outcome).toBe('fail');
      // The job's verdict gives the commit's merged patch, not the one this shard measured.
      const { covered, coverable } = diffCoverFigures(reference);
      expect(verdict.patch).toMatchObject({
        covered,
        coverable,
        percent: Math.trunc((covered / coverable) * 10_000) / 100,
        target: 80,
        outcome: 'fail',
      });
      expect([merged.covered, merged.coverable, merged.coverage]).toEqual([
        unsharded.covered,
        unsharded.total,
        unsharded.pct,
      ]);
      expect(merged.patch).toEqual(diffCoverFigures(reference));
    });

    it('downloaded as coverage-1/ and coverage-2/ and posted in one call: the same figures', async () => {
      const reports = ['coverage-1/lcov.info', 'coverage-2/lcov.info'];
      const { patch, out } = await reportInOneCall(repo, reports, 'main');
      expect(patch).toEqual(diffCoverFigures(reference));
      expect([out.covered_lines, out.coverable_lines, out.coverage]).toEqual([
        unsharded.covered,
        unsharded.total,
        unsharded.pct,
      ]);
      expect(out.unknown_paths).toEqual([]);
    });
  },
);
