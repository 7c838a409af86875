import { mkdir, readFile, rename, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createTestApi } from '@covgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo, type TestRepo } from './git-support.js';
import { covgateIn } from './in-process.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

// A small library with six test files, tested by Vitest with its V8 coverage provider as a CI
// matrix does: three shards (`--shard=i/3`), each report laid out by
// actions/download-artifact as coverage-i/lcov.info at the repository root, and once unsharded.
const LIBRARY: Record<string, string> = {
  'package.json': '{ "name": "shards", "private": true, "type": "module" }\n',
  '.gitignore': 'node_modules\ncoverage\n',
  // No import of vitest in the config or the tests: the scratch project has only the two links.
  'vitest.config.mjs':
    "export default { test: { globals: true, include: ['test/**/*.test.js'], coverage: { provider: 'v8', include: ['src/**'], reporter: ['lcov', 'json-summary'] } } };\n",
  'src/math.js':
    'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n\nexport function div(a, b) {\n  if (b === 0) {\n    throw new Error("division by zero");\n  }\n  return a / b;\n}\n',
  'src/text.js':
    'export function shout(s) {\n  return s.toUpperCase() + "!";\n}\n\nexport function whisper(s) {\n  return s.toLowerCase();\n}\n\nexport function never(s) {\n  const t = s.trim();\n  return t.length;\n}\n',
  'src/shapes.js':
    'export function area(w, h) {\n  if (w < 0 || h < 0) {\n    return 0;\n  }\n  return w * h;\n}\n\nexport function perimeter(w, h) {\n  return 2 * (w + h);\n}\n',
  'test/add.test.js':
    "import { add } from '../src/math.js';\ntest('adds', () => expect(add(1, 2)).toBe(3));\n",
  'test/sub.test.js':
    "import { sub } from '../src/math.js';\ntest('subtracts', () => expect(sub(3, 2)).toBe(1));\n",
  'test/div.test.js':
    "import { div } from '../src/math.js';\ntest('refuses 0', () => expect(() => div(1, 0)).toThrow());\n",
  'test/shout.test.js':
    "import { shout } from '../src/text.js';\ntest('shouts', () => expect(shout('a')).toBe('A!'));\n",
  'test/whisper.test.js':
    "import { whisper } from '../src/text.js';\ntest('whispers', () => expect(whisper('A')).toBe('a'));\n",
  'test/area.test.js':
    "import { area } from '../src/shapes.js';\ntest('measures', () => expect(area(2, 3)).toBe(6));\n",
};

/** Vitest's own figure of a run: its json-summary's line totals. */
interface Lines {
  covered: number;
  total: number;
  pct: number;
}

const target = ['--repo', 'lib', '--branch', 'main', '--commit', 'abcdef1', '--dry-run', '--json'];
const shardReports = ['--report', 'coverage-1/lcov.info', '--report', 'coverage-2/lcov.info'];
const allShards = [...shardReports, '--report', 'coverage-3/lcov.info'];

describe('three Vitest shards downloaded as coverage-1/ ... coverage-3/', () => {
  let repo: TestRepo;
  let unsharded: Lines;
  const shards: Lines[] = [];
  const vitest = (...args: string[]) =>
    repo.run(process.execPath, [join(packageDir('vitest'), 'vitest.mjs'), 'run', ...args]);
  const summaryOf = async (folder: string): Promise<Lines> =>
    JSON.parse(await readFile(join(repo.dir, folder, 'coverage-summary.json'), 'utf8')).total.lines;
  const covgate = (...args: string[]) => covgateIn(repo.dir, ['report', ...target, ...args], {});

  beforeAll(async () => {
    repo = await createRepo('shards');
    await repo.write(LIBRARY);
    await repo.commit('the library');
    await mkdir(join(repo.dir, 'node_modules', '@vitest'), { recursive: true });
    await symlink(packageDir('vitest'), join(repo.dir, 'node_modules', 'vitest'));
    await symlink(
      packageDir('@vitest/coverage-v8'),
      join(repo.dir, 'node_modules', '@vitest', 'coverage-v8'),
    );
    for (const i of [1, 2, 3]) {
      await vitest(`--shard=${i}/3`, '--coverage');
      await rename(join(repo.dir, 'coverage'), join(repo.dir, `coverage-${i}`));
      shards.push(await summaryOf(`coverage-${i}`));
    }
    await vitest('--coverage');
    unsharded = await summaryOf('coverage');
    // Kept out of discovery (a hidden folder) for the tests below.
    await rename(join(repo.dir, 'coverage'), join(repo.dir, '.unsharded'));
  }, 240_000);
  afterAll(() => repo?.remove());

  it('made shards that each cover less than the whole run', () => {
    expect(unsharded.covered).toBeLessThan(unsharded.total);
    for (const shard of shards) expect(shard.covered).toBeLessThan(unsharded.covered);
  });

  it('merges the shards into the unsharded figure, each file once', async () => {
    const result = await covgate(...allShards);
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect([out.covered_lines, out.coverable_lines, out.coverage]).toEqual([
      unsharded.covered,
      unsharded.total,
      unsharded.pct,
    ]);
    expect(out.source_files.map((f: { path: string }) => f.path)).toEqual([
      'src/math.js',
      'src/shapes.js',
      'src/text.js',
    ]);
    expect(out.reports.map((r: { root: string }) => r.root)).toEqual(['.', '.', '.']);
    expect(out.unknown_paths).toEqual([]);
    expect(result.stderr).toBe('covgate: dry run: nothing was sent\n');
  });

  it('posts each shard as a part: the service merges them into the unsharded figure, in any order', async () => {
    const service = createTestApi();
    const org = await service.createOrganisation();
    const { secret } = await service.insertToken(org);
    const fetcher = ((input: RequestInfo | URL, init?: RequestInit) =>
      service.api.handle(new Request(input, init))) as typeof fetch;
    const env = { COVGATE_TOKEN: secret, COVGATE_URL: 'http://covgate.test', NO_COLOR: '1' };
    const postPart = (commit: string, shard: number) =>
      covgateIn(
        repo.dir,
        [
          'report',
          '--repo',
          'lib',
          '--branch',
          'main',
          '--commit',
          commit,
          '--report',
          `coverage-${shard}/lcov.info`,
          '--part',
          `shard-${shard}`,
          '--expect-parts',
          '3',
          '--json',
        ],
        env,
        fetcher,
      );
    const finals = [];
    for (const [commit, order] of [
      ['1111111', [1, 2, 3]],
      ['2222222', [3, 1, 2]],
    ] as const) {
      const answers = [];
      for (const shard of order) answers.push(await postPart(commit, shard));
      for (const pending of answers.slice(0, 2)) {
        expect(pending.code, pending.stderr).toBe(0);
        expect(JSON.parse(pending.stdout)).toMatchObject({ outcome: 'pending', exit_code: 0 });
      }
      const last = answers[2]!;
      expect(last.code, last.stderr).toBe(0);
      const out = JSON.parse(last.stdout);
      // The lines and files printed beside the merged coverage are the commit's, and the
      // job's own are kept under `part`.
      const lastShard = order[2];
      const ownRead = JSON.parse(
        (await covgate('--report', `coverage-${lastShard}/lcov.info`)).stdout,
      );
      expect({
        lines: [out.covered_lines, out.coverable_lines, out.coverage, out.files],
        paths: out.source_files.map((f: { path: string }) => f.path),
        branches: out.branches,
        part: out.part,
      }).toEqual({
        lines: [unsharded.covered, unsharded.total, unsharded.pct, 3],
        paths: ['src/math.js', 'src/shapes.js', 'src/text.js'],
        branches: null,
        part: {
          name: `shard-${lastShard}`,
          covered_lines: shards[lastShard - 1]!.covered,
          coverable_lines: shards[lastShard - 1]!.total,
          files: ownRead.files,
        },
      });
      const detail = (await (
        await service.request(`/v1/executions/${out.execution_id}`, {
          headers: { authorization: `Bearer ${secret}` },
        })
      ).json()) as { coverage: number; files: { covered: number; coverable: number }[] };
      finals.push({
        coverage: detail.coverage,
        covered: detail.files.reduce((sum, file) => sum + file.covered, 0),
        coverable: detail.files.reduce((sum, file) => sum + file.coverable, 0),
      });
    }
    const whole = {
      coverage: unsharded.pct,
      covered: unsharded.covered,
      coverable: unsharded.total,
    };
    expect(finals).toEqual([whole, whole]);
  });

  it('finds the three shards without --report and merges them alike', async () => {
    const result = await covgate();
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout);
    expect([out.covered_lines, out.coverable_lines, out.coverage]).toEqual([
      unsharded.covered,
      unsharded.total,
      unsharded.pct,
    ]);
    expect(result.stderr).toBe(
      [
        'covgate: found coverage-1/lcov.info (lcov)',
        'covgate: found coverage-2/lcov.info (lcov)',
        'covgate: found coverage-3/lcov.info (lcov)',
        'covgate: dry run: nothing was sent',
        '',
      ].join('\n'),
    );
  });

  it('reads the unsharded report below a folder of its own from the root too', async () => {
    const result = await covgate('--report', '.unsharded/lcov.info');
    const out = JSON.parse(result.stdout);
    expect([out.coverage, out.reports[0].root]).toEqual([unsharded.pct, '.']);
    expect(out.source_files.map((f: { path: string }) => f.path)).toEqual([
      'src/math.js',
      'src/shapes.js',
      'src/text.js',
    ]);
  });

  it('takes a --path-prefix as given, and names the files it does not find', async () => {
    const result = await covgate('--report', 'coverage-1/lcov.info', '--path-prefix', 'coverage-1');
    expect(JSON.parse(result.stdout).unknown_paths.map((u: { path: string }) => u.path)).toEqual([
      'coverage-1/src/math.js',
      'coverage-1/src/shapes.js',
      'coverage-1/src/text.js',
    ]);
  });

  it('warns about files the checkout does not have, and --strict-paths refuses them', async () => {
    // A stale report: one file removed since, one renamed in case only.
    await repo.git('rm', '-q', 'src/text.js');
    await repo.git('mv', 'src/math.js', 'src/Math.js');
    const expected =
      '2 files the reports name are not in the checkout: src/math.js (case differs: the checkout has src/Math.js), src/text.js';

    const warned = await covgate(...allShards);
    expect(warned.code).toBe(0);
    expect(JSON.parse(warned.stdout).unknown_paths).toEqual([
      { path: 'src/math.js', report: 'coverage-1/lcov.info', checkout: 'src/Math.js' },
      { path: 'src/text.js', report: 'coverage-1/lcov.info', checkout: null },
    ]);
    expect(warned.stderr).toBe(
      `covgate: warning: ${expected}; they are counted as they are (--verbose lists all): give the folder the paths are relative to with --path-prefix after the --report, or refuse such reports with --strict-paths\ncovgate: dry run: nothing was sent\n`,
    );

    const verbose = await covgate(...allShards, '--verbose');
    expect(verbose.stderr.split('\n').filter((l) => l.includes('not in the checkout:'))).toEqual([
      'covgate: not in the checkout: src/math.js (case differs: the checkout has src/Math.js) (coverage-1/lcov.info)',
      'covgate: not in the checkout: src/text.js (coverage-1/lcov.info)',
      expect.stringMatching(/^covgate: warning: 2 files the reports name/),
    ]);

    expect(await covgate(...allShards, '--strict-paths')).toEqual({
      code: 2,
      stdout: '',
      stderr: `covgate: ${expected}, and --strict-paths refuses them; nothing was posted (give the folder the paths are relative to with --path-prefix after the --report)\n`,
    });
    await rm(join(repo.dir, 'src'), { recursive: true, force: true });
    await repo.git('checkout', '-q', 'HEAD', '--', 'src');
  });
});
