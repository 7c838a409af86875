import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollFirstExecution } from '../src/commands/wait.js';
import { configDir, readApiToken, readConfig, writeConfig } from '../src/credentials.js';
import { colourEnabled, paintFor } from '../src/io.js';
import { testCommandEnv } from '../src/runner.js';
import {
  baselineOf,
  buildVerdict,
  exitCodeOf,
  requiredBaselineFailure,
  stepSummary,
  type Verdict,
  verdictLine,
} from '../src/verdict.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-unit-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the test command environment', () => {
  const parent = {
    PATH: '/usr/bin',
    HOME: '/home/ci',
    CI: 'true',
    DATABASE_URL: 'mysql://secret',
    SERVICE_TOKEN: 's',
    SESSION_SECRET: 's',
    REDIS_URL: 'redis://x',
    PROVIDER_A_WEBHOOK_SECRET: 'a',
    PROVIDER_B_WEBHOOK_SECRET: 'b',
    COVGATE_TOKEN: 'cvg_x',
    COVGATE_TOKEN_FILE: '/run/secret',
    COVGATE_SESSION: 'cvgs_x',
    MY_FIXTURE_DIR: '/data',
    AWS_SECRET_ACCESS_KEY: 'k',
  };

  it('keeps the allowlist and the --pass-env names, never the secrets or covgate credentials', () => {
    expect(testCommandEnv(parent, ['MY_FIXTURE_DIR'])).toEqual({
      CI: 'true',
      HOME: '/home/ci',
      MY_FIXTURE_DIR: '/data',
      PATH: '/usr/bin',
    });
    expect(testCommandEnv(parent, [])).toEqual({ CI: 'true', HOME: '/home/ci', PATH: '/usr/bin' });
  });

  it.each(['DATABASE_URL', 'service_token', 'COVGATE_TOKEN', 'COVGATE_SESSION', 'REDIS_URL'])(
    'refuses --pass-env %s',
    (name) => {
      expect(() => testCommandEnv(parent, [name])).toThrow(
        `--pass-env ${name}: this variable is never passed to the test command`,
      );
    },
  );
});

const verdict: Verdict = {
  outcome: 'warn',
  decided_by: 'delta thresholds',
  recorded_outcome: 'warn',
  repo: 'web',
  branch: 'feature/a|b',
  base_branch: 'main',
  commit: '0123456789abcdef0123',
  coverage: 83.5,
  baseline: 84.25,
  delta: '-0.75',
  covered_lines: 167,
  coverable_lines: 200,
  branches: null,
  files: 1,
  reports: [
    {
      path: 'coverage/lcov.info',
      format: 'lcov',
      root: '.',
      files: 1,
      covered: 167,
      coverable: 200,
    },
  ],
  source_files: [{ path: 'src/a.js', covered: 167, coverable: 200 }],
  unknown_paths: [],
  patch: null,
  patch_skipped: 'no base branch (not a pull request, and no --base-branch)',
  execution_id: 'exe_1',
  created_at: '2026-11-22T19:00:00Z',
  exit_code: 0,
};

describe('output', () => {
  it('prints one verdict line, coloured only when asked', () => {
    const plain = paintFor({ write: () => true, isTTY: false }, {});
    expect(verdictLine(verdict, plain)).toBe(
      'warn web@feature/a|b: coverage 83.50%, baseline 84.25% on main, delta -0.75',
    );
    const coloured = paintFor({ write: () => true, isTTY: true }, {});
    expect(verdictLine(verdict, coloured)).toBe(
      '\u001b[33m\u001b[1mwarn\u001b[22m\u001b[39m web@feature/a|b: coverage 83.50%, baseline 84.25% on main, delta -0.75',
    );
  });

  it.each([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { TERM: 'dumb' }, false],
    [false, { FORCE_COLOR: '1' }, true],
    [true, { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
  ])('colour on a TTY %s with %j: %s', (isTTY, env, expected) => {
    expect(colourEnabled({ write: () => true, isTTY }, env)).toBe(expected);
  });

  it('writes a Markdown step summary whose table user-controlled names cannot break', () => {
    expect(stepSummary(verdict)).toBe(
      [
        '### ⚠️ covgate: warn',
        '',
        '`web` on `feature/a b` at `0123456789ab`',
        '',
        'Warned by the coverage change: -0.75 pts against the baseline.',
        '',
        '| coverage | baseline | delta | outcome | lines |',
        '|---:|---:|---:|---|---:|',
        '| 83.50% | 84.25% (`main`) | -0.75 | warn | 167 / 200 |',
        '',
        '',
      ].join('\n'),
    );
  });

  it('exits 1 on fail, and on warn with --fail-on-warn', () => {
    expect([
      exitCodeOf('pass', true),
      exitCodeOf('warn', false),
      exitCodeOf('warn', true),
      exitCodeOf('fail', false),
    ]).toEqual([0, 0, 1, 1]);
  });

  it('says there was no baseline instead of a delta, with no outcome word', () => {
    const first: Verdict = { ...verdict, outcome: 'pass', baseline: null, delta: '0.00' };
    const plain = paintFor({ write: () => true, isTTY: false }, {});
    expect(verdictLine({ ...first, base_branch: 'release-9' }, plain)).toBe(
      'web@feature/a|b: coverage 83.50%, no baseline on release-9 yet: nothing to compare, recorded as the first run',
    );
    expect(stepSummary({ ...first, base_branch: 'rel|9' })).toBe(
      [
        '### ℹ️ covgate: no baseline',
        '',
        '`web` on `feature/a b` at `0123456789ab`',
        '',
        'No baseline on `rel 9` yet: nothing to compare, recorded as the first run.',
        '',
        '| coverage | baseline | lines |',
        '|---:|---|---:|',
        '| 83.50% | none on `rel 9` | 167 / 200 |',
        '',
        '',
      ].join('\n'),
    );
    expect(stepSummary({ ...first, exit_code: 1 }).split('\n')[0]).toBe(
      '### ❌ covgate: no baseline',
    );
  });

  it('names a failure of the patch rule on a run without a baseline', () => {
    const plain = paintFor({ write: () => true, isTTY: false }, {});
    const failed: Verdict = {
      ...verdict,
      outcome: 'fail',
      decided_by: 'patch rule',
      recorded_outcome: 'pass',
      baseline: null,
      delta: '0.00',
      patch: {
        covered: 1,
        coverable: 4,
        percent: 25,
        changed_lines: 4,
        changed_files: 1,
        files: [],
        not_in_report: [],
        test_files: [],
        no_line_data: [],
        base_branch: 'main',
        base_ref: 'origin/main',
        merge_base: 'a'.repeat(40),
        target: 80,
        target_source: null,
        outcome: 'fail',
        decided_by: 'cli',
      },
      exit_code: 1,
    };
    expect(verdictLine(failed, plain)).toBe(
      'fail web@feature/a|b: coverage 83.50%, no baseline on main yet: nothing to compare, recorded as the first run, patch 25.00% (1 of 4 lines, target 80.00%); failed by the patch rule (patch coverage below its target)',
    );
    expect(stepSummary(failed).split('\n')[0]).toBe('### ❌ covgate: fail, no baseline');
    expect(stepSummary(failed)).toContain('**Patch** (lines changed since `aaaaaaaaaaaa`');
  });

  it('fails --require-baseline on baseline null, and on a server that does not say', () => {
    const summary = { covered: 167, coverable: 200, files: 3, percent: 83.5 };
    const record = {
      id: 'exe_1',
      repo: 'web',
      branch: 'feature',
      outcome: 'pass' as const,
      delta: '0.00',
      coverage: 83.5,
      commit: null,
      created_at: '2026-11-22T19:00:00Z',
    };
    const build = (baseline: { coverage: number } | null | undefined, requireBaseline: boolean) =>
      buildVerdict({
        summary: summary as Parameters<typeof buildVerdict>[0]['summary'],
        reports: [],
        sourceFiles: [],
        unknownPaths: [],
        baseBranch: 'release-9',
        patch: null,
        patchSkipped: null,
        record: baseline === undefined ? record : { ...record, baseline },
        failOnWarn: false,
        requireBaseline,
      });
    expect([build(null, false).baseline, build(null, false).exit_code]).toEqual([null, 0]);
    expect([build(null, true).baseline, build(null, true).exit_code]).toEqual([null, 1]);
    expect([
      build({ coverage: 83.5 }, true).baseline,
      build({ coverage: 83.5 }, true).exit_code,
    ]).toEqual([83.5, 0]);
    // An older server: the baseline is derived as before, and cannot satisfy the flag.
    expect([build(undefined, false).baseline, build(undefined, false).exit_code]).toEqual([
      83.5, 0,
    ]);
    expect(build(undefined, true).exit_code).toBe(1);

    expect(requiredBaselineFailure({ coverage: 1 }, 'main')).toBeNull();
    expect(requiredBaselineFailure(null, 'release-9')).toBe(
      'no baseline on release-9 and --require-baseline is set: the gate fails (post a run on release-9 first, or check --base-branch)',
    );
    expect(requiredBaselineFailure(undefined, 'main')).toBe(
      'the service does not say whether it compared the run with a baseline (it is older than this covgate) and --require-baseline is set: the gate fails',
    );
  });

  it('derives the baseline from coverage and delta', () => {
    expect([baselineOf(83.5, '-0.75'), baselineOf(90.1, '+0.10'), baselineOf(70, '0.00')]).toEqual([
      84.25, 90, 70,
    ]);
  });
});

describe('credentials', () => {
  it('reads the token from COVGATE_TOKEN, else from COVGATE_TOKEN_FILE, trimmed', async () => {
    const file = join(dir, 'token');
    await writeFile(file, 'cvg_fromfile\n');
    expect(await readApiToken({ COVGATE_TOKEN: ' cvg_direct ', COVGATE_TOKEN_FILE: file })).toBe(
      'cvg_direct',
    );
    expect(await readApiToken({ COVGATE_TOKEN_FILE: file })).toBe('cvg_fromfile');
    await expect(readApiToken({ COVGATE_TOKEN_FILE: join(dir, 'none') })).rejects.toThrow(
      `COVGATE_TOKEN_FILE ${join(dir, 'none')}: cannot be read (ENOENT)`,
    );
  });

  it('puts the config in the platform config folder', () => {
    expect(configDir({ HOME: '/h' }, 'linux')).toBe('/h/.config/covgate');
    expect(configDir({ HOME: '/h', XDG_CONFIG_HOME: '/x' }, 'linux')).toBe('/x/covgate');
    expect(configDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Preferences/covgate');
    expect(configDir({ HOME: '/h', COVGATE_CONFIG_DIR: '/c' }, 'linux')).toBe('/c');
  });

  it('writes the config readable by its owner only, even over a wider existing file', async () => {
    const env = { COVGATE_CONFIG_DIR: join(dir, 'cfg') };
    const file = await writeConfig(env, { url: 'http://a', session: 'cvgs_1' });
    const { chmod } = await import('node:fs/promises');
    await chmod(file, 0o644);
    await writeConfig(env, { url: 'http://b', session: 'cvgs_2' });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'cfg'))).mode & 0o777).toBe(0o700);
    expect(await readConfig(env)).toEqual({ url: 'http://b', session: 'cvgs_2' });
    expect(await readFile(file, 'utf8')).toBe(
      '{\n  "url": "http://b",\n  "session": "cvgs_2"\n}\n',
    );
  });
});

describe('the onboarding poll', () => {
  const empty = { executions: [], total: 0 };
  const record = {
    id: 'exe_1',
    repo: 'web',
    branch: 'main',
    outcome: 'pass' as const,
    delta: '0.00',
    coverage: 80,
    commit: null,
    created_at: '2026-11-22T19:00:00Z',
  };

  it('polls every interval until total > 0 and returns the first record', async () => {
    let clock = 0;
    const sleeps: number[] = [];
    const answers = [empty, empty, { executions: [record], total: 1 }];
    const first = await pollFirstExecution({
      list: async () => answers.shift() as typeof empty,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
      now: () => clock,
    });
    expect(first).toEqual(record);
    expect(sleeps).toEqual([5000, 5000]);
  });

  it('gives up after 10 minutes: 121 polls at 0, 5, ... 600 s', async () => {
    let clock = 0;
    let polls = 0;
    const first = await pollFirstExecution({
      list: async () => {
        polls++;
        return empty;
      },
      sleep: async (ms) => {
        clock += ms;
      },
      now: () => clock,
    });
    expect([first, polls, clock]).toEqual([undefined, 121, 600_000]);
  });
});
