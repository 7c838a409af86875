import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Execution, Patch } from '@covgate/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepo, sh, type TestRepo } from './git-support.js';
import { covgateIn } from './in-process.js';

// The patch in the verdict: `covgate report` on a pull-request branch against a stand-in for
// the service. By default it plays a service older than patch coverage, which answers with the
// outcome of its delta thresholds only (the CLI then applies --patch-target itself); with
// `judge` it answers as today's service does, with its patch rule's judgement.

// src/a.js gains lines 4-7 on the branch; the report runs lines 4 and 7 of them, not 5 and 6.
const LCOV = 'SF:src/a.js\nDA:1,1\nDA:2,1\nDA:4,3\nDA:5,0\nDA:6,0\nDA:7,1\nend_of_record\n';

let repo: TestRepo;
let mergeBase: string;
let head: string;

beforeAll(async () => {
  repo = await createRepo('patch-gate');
  await repo.write({
    'src/a.js': 'a();\nb();\n// end\n',
    'README.md': 'hello\n',
    '.gitignore': 'lcov.info\nsummary.md\nsummary-service.md\n',
  });
  await repo.commit('base');
  mergeBase = (await repo.git('rev-parse', 'HEAD')).trim();
  await repo.git('checkout', '-q', '-b', 'feature');
  await repo.write({ 'src/a.js': 'a();\nb();\n// end\nc();\nif (x) {\n  d();\n}\n' });
  await repo.commit('feature');
  head = (await repo.git('rev-parse', 'HEAD')).trim();
  await repo.write({ 'lcov.info': LCOV });
});

afterAll(() => repo?.remove());

/** What today's service answers of a patch: its judgement and the rule that decided. */
interface Judgement {
  patch: Patch;
  decided_by: NonNullable<Execution['decided_by']>;
}

async function covgate(
  args: string[],
  options: {
    outcome?: 'pass' | 'warn' | 'fail';
    judge?: Judgement;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
  } = {},
) {
  const sent: unknown[] = [];
  const result = await covgateIn(
    options.cwd ?? repo.dir,
    ['report', '--repo', 'web', '--branch', 'feature', '--report', 'lcov.info', ...args],
    { ...repo.env, COVGATE_TOKEN: `cvg_${'1'.repeat(40)}`, NO_COLOR: '1', ...options.env },
    async (input, init) => {
      const body = (await new Request(input, init).json()) as { coverage: number };
      sent.push(body);
      return Response.json(
        {
          id: 'exe_1',
          org: 'acme',
          repo: 'web',
          branch: 'feature',
          commit: null,
          coverage: body.coverage,
          delta: '0.00',
          outcome: options.outcome ?? 'pass',
          created_at: '2026-11-25T10:00:00Z',
          ...options.judge,
        },
        { status: 201 },
      );
    },
  );
  return { ...result, sent };
}

const summaryLine = 'covgate: lcov.info (lcov): 4 of 6 lines in 1 file, 66.66%\n';
const patchLine = () =>
  `covgate: patch: 2 of 4 changed lines covered, 50.00% (4 lines changed in 1 file since ${mergeBase.slice(0, 12)}, the merge base with main)\n`;

// The file's patch counts ride on its entry: 2 of its 4 changed lines ran.
// Lines 1-2 and 4-7 coverable, 5-6 missed; the patch changed lines 4-7.
const FILES = [
  {
    path: 'src/a.js',
    covered: 4,
    coverable: 6,
    patch_covered: 2,
    patch_coverable: 4,
    lines: { coverable: [1, 2, 2, 4], covered: [3, 2, 1] },
    patch_lines: [4, 4],
  },
];

/** The run covgate posts of the branch against main, with `extra` fields. */
const requestAgainstMain = (extra: Record<string, unknown>) => ({
  repo: 'web',
  branch: 'feature',
  coverage: 66.66,
  base_branch: 'main',
  commit: head,
  base_commit: mergeBase,
  patch: { covered: 2, coverable: 4 },
  files: FILES,
  ...extra,
});

// The verdict line of the branch failed by the patch rule at the default target of 80 %.
const failedByPatchRule =
  'fail web@feature: coverage 66.66%, baseline 66.66% on main, delta 0.00, patch 50.00% (2 of 4 lines, target 80.00%); failed by the patch rule (patch coverage below its target)\n';

describe('a pull-request run judged by the service', () => {
  const failed: Judgement = {
    patch: {
      covered: 2,
      coverable: 4,
      percent: 50,
      target: 80,
      target_source: 'default',
      passed: false,
    },
    decided_by: 'patch',
  };

  it("sends the patch, its merge base, the files and the component, and prints the service's verdict", async () => {
    const result = await covgate(['--base-branch', 'main', '--component', 'api'], {
      outcome: 'fail',
      judge: failed,
    });
    expect(result).toEqual({
      code: 1,
      stdout: failedByPatchRule,
      stderr: `${summaryLine}${patchLine()}covgate: Failed by the patch rule: 50.00% of the patch’s lines are covered, below the target of 80.00% (covgate’s default). Coverage changed by 0.00 pts against the baseline.\n`,
      sent: [requestAgainstMain({ component: 'api' })],
    });
  });

  it('--json: the service decided, with the target it took and where from', async () => {
    const result = await covgate(['--base-branch', 'main', '--patch-target', '75', '--json'], {
      outcome: 'fail',
      judge: { ...failed, patch: { ...failed.patch, target: 75, target_source: 'run' } },
    });
    expect(result.code).toBe(1);
    expect(result.sent).toMatchObject([{ patch: { covered: 2, coverable: 4 }, patch_target: 75 }]);
    const verdict = JSON.parse(result.stdout);
    expect(verdict).toMatchObject({
      outcome: 'fail',
      decided_by: 'patch rule',
      recorded_outcome: 'fail',
      exit_code: 1,
    });
    expect(verdict.patch).toMatchObject({
      percent: 50,
      target: 75,
      target_source: 'run',
      outcome: 'fail',
      decided_by: 'service',
    });
  });

  it("passes when the service's patch rule passes, whatever the CLI alone would say", async () => {
    const result = await covgate(['--base-branch', 'main', '--json'], {
      judge: {
        patch: { ...failed.patch, target: 40, target_source: 'repository', passed: true },
        decided_by: 'delta',
      },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      outcome: 'pass',
      decided_by: 'delta thresholds',
      patch: { target: 40, target_source: 'repository', outcome: 'pass', decided_by: 'service' },
    });
  });

  it('says the service applied the patch rule in the step summary', async () => {
    const file = join(repo.dir, 'summary-service.md');
    const result = await covgate(['--base-branch', 'main'], {
      outcome: 'fail',
      judge: failed,
      env: { GITHUB_STEP_SUMMARY: file },
    });
    expect(result.code).toBe(1);
    expect(await readFile(file, 'utf8')).toContain(
      '50.00% (2 / 4 lines), target 80.00%: fail (patch rule, applied by the covgate service)',
    );
  });
});

describe('a pull-request run with a patch target, against a service that ignores patches', () => {
  it('fails below the target, naming the patch rule, though the service passed it', async () => {
    const result = await covgate(['--base-branch', 'main', '--patch-target', '80']);
    expect(result).toEqual({
      code: 1,
      stdout: failedByPatchRule,
      stderr: `${summaryLine}${patchLine()}covgate: Failed by the patch rule: 50.00% of the patch’s lines are covered, below the target of 80.00%. Coverage changed by 0.00 pts against the baseline.\n`,
      sent: [requestAgainstMain({ patch_target: 80 })],
    });
  });

  it('--json: the patch, its files and lines, and which rule decided, by whom', async () => {
    const result = await covgate(['--base-branch', 'main', '--patch-target', '80', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const verdict = JSON.parse(result.stdout);
    expect(verdict).toMatchObject({
      outcome: 'fail',
      decided_by: 'patch rule',
      recorded_outcome: 'pass',
      exit_code: 1,
      patch_skipped: null,
    });
    expect(verdict.patch).toEqual({
      base_branch: 'main',
      base_ref: 'main',
      // The sample's lcov has no BRDA: no branch data, never 0 of 0.
      branches: null,
      merge_base: mergeBase,
      covered: 2,
      coverable: 4,
      percent: 50,
      changed_lines: 4,
      changed_files: 1,
      files: [{ path: 'src/a.js', covered: 2, coverable: 4, uncovered_lines: [5, 6] }],
      not_in_report: [],
      test_files: [],
      no_line_data: [],
      target: 80,
      target_source: null,
      outcome: 'fail',
      decided_by: 'cli',
    });
  });

  it('passes at the target (not below it), the service deciding', async () => {
    const result = await covgate(['--base-branch', 'main', '--patch-target', '50', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      outcome: 'pass',
      decided_by: 'delta thresholds',
      patch: { percent: 50, target: 50, outcome: 'pass' },
    });
  });

  it('names the delta thresholds when the service failed the run as well', async () => {
    const result = await covgate(['--base-branch', 'main', '--patch-target', '80', '--json'], {
      outcome: 'fail',
    });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      outcome: 'fail',
      decided_by: 'delta thresholds',
      recorded_outcome: 'fail',
      patch: { outcome: 'fail' },
    });
  });

  it('writes the patch and the lines not covered into the step summary', async () => {
    const file = join(repo.dir, 'summary.md');
    const result = await covgate(['--base-branch', 'main', '--patch-target', '80'], {
      env: { GITHUB_STEP_SUMMARY: file },
    });
    expect(result.code).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(
      [
        '### ❌ covgate: fail',
        '',
        '`web` on `feature`',
        '',
        'Failed by the patch rule: 50.00% of the patch’s lines are covered, below the target of 80.00%. Coverage changed by 0.00 pts against the baseline.',
        '',
        '| coverage | baseline | delta | outcome | lines |',
        '|---:|---:|---:|---|---:|',
        '| 66.66% | 66.66% (`main`) | 0.00 | fail | 4 / 6 |',
        '',
        '',
        `**Patch** (lines changed since \`${mergeBase.slice(0, 12)}\`, the merge base with \`main\`): 50.00% (2 / 4 lines), target 80.00%: fail (patch rule, applied by the covgate CLI)`,
        '',
        '| file | covered | not covered |',
        '|---|---:|---|',
        '| `src/a.js` | 2 / 4 | 5-6 |',
        '',
        '',
      ].join('\n'),
    );
  });

  it('--verbose lists each file of the patch with the changed lines not covered', async () => {
    const result = await covgate(['--base-branch', 'main', '--verbose']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `${patchLine()}covgate:   src/a.js: 2 of 4 changed lines covered; not covered: 5-6\n`,
    );
  });

  // The checkout has no origin remote: covgate cannot fetch the base branch itself.
  const developMissing =
    'the base branch develop is not in this checkout (no origin/develop or develop); fetch it before covgate runs: git fetch --no-tags origin develop:refs/remotes/origin/develop (in GitHub Actions: actions/checkout with fetch-depth: 0); covgate could not fetch it itself: the checkout has no remote named origin';

  it.each([[[]], [['--patch-target', '80']]])(
    'exits 2 before posting when the patch of a change cannot be measured, naming the fix (%j)',
    async (flags) => {
      const result = await covgate(['--base-branch', 'develop', ...flags]);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `${summaryLine}covgate: the patch of this change cannot be measured, and a change is gated on its patch: ${developMissing}. To post the run without patch coverage, pass --allow-missing-patch\n`,
        sent: [],
      });
    },
  );

  it.each([[['--allow-missing-patch']], [['--patch-target', '0']]])(
    'with %j, warns and posts the run without a patch',
    async (flags) => {
      const result = await covgate(['--base-branch', 'develop', ...flags, '--json']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(`covgate: warning: no patch coverage: ${developMissing}\n`);
      expect(result.sent).toEqual([
        expect.not.objectContaining({ patch: expect.anything(), base_commit: expect.anything() }),
      ]);
      expect(JSON.parse(result.stdout)).toMatchObject({
        outcome: 'pass',
        decided_by: 'delta thresholds',
        patch: null,
        patch_skipped: developMissing,
      });
    },
  );

  it('applies no patch rule to a run without a base branch, or on the base branch itself', async () => {
    const push = await covgate(['--patch-target', '80', '--json']);
    expect(push.code).toBe(0);
    expect(JSON.parse(push.stdout)).toMatchObject({
      patch: null,
      patch_skipped: 'no base branch (not a pull request, and no --base-branch)',
    });
    const onMain = await covgate([
      '--branch',
      'main',
      '--base-branch',
      'main',
      '--patch-target',
      '80',
      '--json',
    ]);
    expect(onMain.code).toBe(0);
    expect(JSON.parse(onMain.stdout)).toMatchObject({
      patch: null,
      patch_skipped: 'the run is on the base branch main',
    });
  });

  it.each(['-1', '100.5', 'abc', ''])('refuses --patch-target %j with exit 2', async (value) => {
    const result = await covgate(['--base-branch', 'main', '--patch-target', value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `covgate: error: option '--patch-target <percent>' argument '${value}' is invalid. a percentage from 0 to 100\n(run covgate --help for usage)\n`,
    );
    expect(result.sent).toEqual([]);
  });
});

describe('an empty patch', () => {
  it('passes the patch rule: no coverable line changed', async () => {
    await repo.git('checkout', '-q', '-b', 'docs', 'main');
    try {
      await repo.write({ 'README.md': 'hello\nworld\n' });
      await repo.commit('docs');
      const result = await covgate([
        '--branch',
        'docs',
        '--base-branch',
        'main',
        '--patch-target',
        '90',
      ]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        'pass web@feature: coverage 66.66%, baseline 66.66% on main, delta 0.00, patch: no coverable line changed\n',
      );
      expect(result.stderr).toContain(
        'covgate: patch: no coverable line changed (1 line changed in 1 file since',
      );
      expect(result.stderr).toContain(
        'covgate: patch: 1 changed file is in no report and not counted: README.md\n',
      );
    } finally {
      await repo.git('checkout', '-q', 'feature');
    }
  });
});

describe('changed test files', () => {
  it('are neither counted nor listed among the changed files no report covers', async () => {
    await repo.git('checkout', '-q', '-b', 'tests', 'main');
    try {
      // One test file of each ecosystem's usual patterns, a source no report names, a doc.
      await repo.write({
        'README.md': 'hello\nworld\n',
        'src/b.js': 'b();\n',
        'src/a.test.js': 'test();\n',
        'src/__tests__/a.js': 'test();\n',
        'web/button.spec.tsx': 'test();\n',
        'test/helpers.mjs': 'help();\n',
        'pkg/calc_test.go': 'package calc\n',
        'tests/test_calc.py': 'def test(): pass\n',
        'app/conftest.py': 'import pytest\n',
        'api/src/test/java/CalcTest.java': 'class CalcTest {}\n',
        'api/src/main/java/CalcIT.java': 'class CalcIT {}\n',
        'lib/calc_spec.rb': 'describe Calc\n',
        'Calc.Tests/CalcTests.cs': 'class CalcTests {}\n',
      });
      await repo.commit('tests');
      const against = ['--branch', 'tests', '--base-branch', 'main'];
      const result = await covgate(against);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(
        '\ncovgate: patch: 2 changed files are in no report and not counted: README.md, src/b.js\n',
      );
      const json = await covgate([...against, '--json']);
      expect(JSON.parse(json.stdout).patch).toMatchObject({
        changed_files: 13,
        not_in_report: ['README.md', 'src/b.js'],
        test_files: [
          'Calc.Tests/CalcTests.cs',
          'api/src/main/java/CalcIT.java',
          'api/src/test/java/CalcTest.java',
          'app/conftest.py',
          'lib/calc_spec.rb',
          'pkg/calc_test.go',
          'src/__tests__/a.js',
          'src/a.test.js',
          'test/helpers.mjs',
          'tests/test_calc.py',
          'web/button.spec.tsx',
        ],
      });
    } finally {
      await repo.git('checkout', '-q', 'feature');
    }
  });
});

describe('a change in a clone that lacks the history its patch needs', () => {
  let origin: string;
  beforeAll(async () => {
    origin = `${repo.dir}-origin.git`;
    await repo.run('git', ['clone', '-q', '--bare', repo.dir, origin]);
  });

  /** A clone of the feature branch only (`git clone args`), with the report written in it. */
  async function cloneFeature(name: string, ...args: string[]): Promise<string> {
    const dir = `${repo.dir}-${name}`;
    await repo.run('git', ['clone', '-q', ...args, '--branch', 'feature', `file://${origin}`, dir]);
    await writeFile(join(dir, 'lcov.info'), LCOV);
    return dir;
  }
  const fetchLine = (args: string) =>
    `covgate: fetching the history the patch needs: git fetch --no-tags ${args}\n`;

  // The fetch comes first: the policy file is read at the merge base before the reports.
  it('a shallow clone: covgate fetches the base branch and the history, then measures', async () => {
    const clone = await cloneFeature('shallow', '--depth', '1');
    const result = await covgate(['--base-branch', 'main'], { cwd: clone });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(
      `${fetchLine(`--depth=50 origin +refs/heads/main:refs/remotes/origin/main ${head}`)}${summaryLine}${patchLine().replace('with main', 'with origin/main')}covgate: Passed: 0.00 pts against the baseline.\n`,
    );
    expect(result.sent).toEqual([
      expect.objectContaining({ base_commit: mergeBase, patch: { covered: 2, coverable: 4 } }),
    ]);
  });

  it('a full clone of one branch: covgate fetches the base branch whole, once', async () => {
    const clone = await cloneFeature('single', '--single-branch');
    const result = await covgate(['--base-branch', 'main'], { cwd: clone });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(fetchLine('origin +refs/heads/main:refs/remotes/origin/main'));
    expect(result.sent).toEqual([
      expect.objectContaining({ base_commit: mergeBase, patch: { covered: 2, coverable: 4 } }),
    ]);
    expect(
      (await sh(clone, 'git', ['rev-parse', '--is-shallow-repository'], repo.env)).trim(),
    ).toBe('false');
  });

  it("exits 2 with git's answer when the fetch fails", async () => {
    const clone = await cloneFeature('no-develop', '--depth', '1');
    const result = await covgate(['--base-branch', 'develop'], { cwd: clone });
    expect(result.code).toBe(2);
    expect(result.sent).toEqual([]);
    expect(result.stderr).toBe(
      `${fetchLine(`--depth=50 origin +refs/heads/develop:refs/remotes/origin/develop ${head}`)}${summaryLine}covgate: the patch of this change cannot be measured, and a change is gated on its patch: the base branch develop is not in this checkout (no origin/develop or develop); fetch it before covgate runs: git fetch --no-tags --unshallow origin develop:refs/remotes/origin/develop (in GitHub Actions: actions/checkout with fetch-depth: 0); covgate could not fetch it itself: git fetch failed: fatal: couldn't find remote ref refs/heads/develop. To post the run without patch coverage, pass --allow-missing-patch\n`,
    );
  });

  it('exits 2 naming the fix when there is nothing to fetch from (no origin remote)', async () => {
    const clone = await cloneFeature('no-origin', '--depth', '1');
    await sh(clone, 'git', ['remote', 'remove', 'origin'], repo.env);
    const result = await covgate(['--base-branch', 'main'], { cwd: clone });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `${summaryLine}covgate: the patch of this change cannot be measured, and a change is gated on its patch: the base branch main is not in this checkout (no origin/main or main); fetch it before covgate runs: git fetch --no-tags --unshallow origin main:refs/remotes/origin/main (in GitHub Actions: actions/checkout with fetch-depth: 0); covgate could not fetch it itself: the checkout has no remote named origin. To post the run without patch coverage, pass --allow-missing-patch\n`,
      sent: [],
    });
  });
});
