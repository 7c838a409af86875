import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plural, summaryLine } from '../src/report-lines.js';
import { covgateIn } from './in-process.js';

// `covgate` in-process with captured streams: usage errors, dry runs and what they print.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-main-'));
  for (const pkg of ['a', 'b']) {
    await mkdir(join(dir, 'packages', pkg, 'coverage'), { recursive: true });
    await writeFile(
      join(dir, 'packages', pkg, 'coverage', 'lcov.info'),
      'SF:index.js\nDA:1,1\nend_of_record\n',
    );
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const covgate = (args: string[], env: NodeJS.ProcessEnv = {}, fetch?: typeof globalThis.fetch) =>
  // Nothing here may reach a service unless the test answers it.
  covgateIn(dir, args, { COVGATE_TOKEN: `cvg_${'1'.repeat(40)}`, ...env }, fetch);

describe('an unquoted glob after --report', () => {
  // What the shell makes of `--report packages/*/coverage/lcov.info`.
  const expanded = ['--report', 'packages/a/coverage/lcov.info', 'packages/b/coverage/lcov.info'];

  it('report: exits 2 with the hint instead of "too many arguments"', async () => {
    const result = await covgate(['report', '--repo', 'r', '--branch', 'main', ...expanded]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'covgate: unexpected argument packages/b/coverage/lcov.info: --report takes one path; repeat it or quote the glob\n',
    });
  });

  it('run: exits 2 with the hint before running anything, instead of "could not be started (EACCES)"', async () => {
    const result = await covgate([
      'run',
      '--repo',
      'r',
      '--branch',
      'main',
      ...expanded,
      '--',
      'npm',
      'test',
    ]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'covgate: packages/b/coverage/lcov.info is a coverage report, not a test command: --report takes one path; repeat it or quote the glob\n',
    });
  });
});

describe('wording', () => {
  it('says "1 file" and "2 files"', () => {
    expect([plural(1, 'file'), plural(2, 'file'), plural(0, 'file')]).toEqual([
      '1 file',
      '2 files',
      '0 files',
    ]);
    const reports = [{ path: 'coverage/lcov.info', format: 'lcov' as const }];
    expect(summaryLine({ covered: 15, coverable: 26, percent: 57.69, files: 1 }, reports)).toBe(
      'coverage/lcov.info (lcov): 15 of 26 lines in 1 file, 57.69%',
    );
  });
});

describe('paths, --dry-run, --verbose and --json', () => {
  const target = ['--repo', 'web', '--branch', 'main', '--commit', 'abcdef1'];
  const both = [
    '--report',
    'packages/a/coverage/lcov.info',
    '--report',
    'packages/b/coverage/lcov.info',
  ];
  // What covgate makes of the two reports: its request's files and its --json lists.
  const bothFiles = [
    { path: 'packages/a/index.js', covered: 1, coverable: 1 },
    { path: 'packages/b/index.js', covered: 1, coverable: 1 },
  ];
  // What the request sends of them: line 1 of each, covered.
  const bothEntries = bothFiles.map((file) => ({
    ...file,
    lines: { coverable: [1, 1], covered: [1] },
  }));
  const bothReports = ['a', 'b'].map((pkg) => ({
    path: `packages/${pkg}/coverage/lcov.info`,
    format: 'lcov',
    root: `packages/${pkg}`,
    files: 1,
    covered: 1,
    coverable: 1,
  }));

  it('--dry-run prints the request it would send, needs no token and sends nothing', async () => {
    const result = await covgate(
      ['report', ...target, ...both, '--dry-run', '--base-branch', 'dev', '--allow-missing-patch'],
      {
        COVGATE_TOKEN: '',
        COVGATE_URL: 'https://covgate.example.com/base/',
      },
    );
    expect(result).toEqual({
      code: 0,
      stdout: `POST https://covgate.example.com/base/v1/executions
{
  "repo": "web",
  "branch": "main",
  "coverage": 100,
  "base_branch": "dev",
  "commit": "abcdef1",
  "files": [
    {
      "path": "packages/a/index.js",
      "covered": 1,
      "coverable": 1,
      "lines": {
        "coverable": [
          1,
          1
        ],
        "covered": [
          1
        ]
      }
    },
    {
      "path": "packages/b/index.js",
      "covered": 1,
      "coverable": 1,
      "lines": {
        "coverable": [
          1,
          1
        ],
        "covered": [
          1
        ]
      }
    }
  ]
}
`,
      stderr: `covgate: 2 reports (lcov): 2 of 2 lines in 2 files, 100.00%
covgate: warning: no patch coverage: ${await realpath(dir)} is not a git checkout
covgate: dry run: nothing was sent
`,
    });
  });

  it('--dry-run --json prints the request, the figures, the reports and the files', async () => {
    const result = await covgate(['report', ...target, ...both, '--dry-run', '--json'], {
      COVGATE_TOKEN: '',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      dry_run: true,
      request: {
        method: 'POST',
        url: 'http://localhost:8080/v1/executions',
        body: {
          repo: 'web',
          branch: 'main',
          coverage: 100,
          commit: 'abcdef1',
          files: bothEntries,
        },
      },
      coverage: 100,
      covered_lines: 2,
      coverable_lines: 2,
      files: 2,
      reports: bothReports,
      source_files: bothFiles,
      // Not a git checkout: no path is checked.
      unknown_paths: [],
      patch: null,
      patch_skipped: 'no base branch (not a pull request, and no --base-branch)',
    });
    expect(result.stderr).toBe('covgate: dry run: nothing was sent\n');
  });

  it('--dry-run exits 2 on a report error', async () => {
    const result = await covgate(['report', ...target, '--report', 'nothing.info', '--dry-run'], {
      COVGATE_TOKEN: '',
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'covgate: nothing.info: no such file\n',
    });
  });

  it('--verbose prints each report and file with its format, root and counts', async () => {
    const result = await covgate(['report', ...target, ...both, '--dry-run', '--verbose']);
    expect(result.stderr).toBe(
      [
        'covgate: packages/a/coverage/lcov.info: lcov, paths from packages/a, 1 file, 1 of 1 lines',
        'covgate:   packages/a/index.js (index.js): 1 of 1 lines',
        'covgate: packages/b/coverage/lcov.info: lcov, paths from packages/b, 1 file, 1 of 1 lines',
        'covgate:   packages/b/index.js (index.js): 1 of 1 lines',
        'covgate: 2 reports (lcov): 2 of 2 lines in 2 files, 100.00%',
        'covgate: no patch coverage: no base branch (not a pull request, and no --base-branch)',
        'covgate: dry run: nothing was sent',
        '',
      ].join('\n'),
    );
  });

  it('--path-prefix belongs to the --report before it; --path-map rewrites folders', async () => {
    const result = await covgate([
      'report',
      ...target,
      '--report',
      'packages/a/coverage/lcov.info',
      '--path-prefix',
      'lib/a',
      '--report',
      'packages/b/coverage/lcov.info',
      '--path-map',
      'packages/b=lib/b',
      '--dry-run',
      '--json',
    ]);
    expect(JSON.parse(result.stdout).source_files.map((f: { path: string }) => f.path)).toEqual([
      'lib/a/index.js',
      'lib/b/index.js',
    ]);
  });

  it.each([
    [
      ['--path-prefix', 'x', '--report', 'a.info'],
      "covgate: error: option '--path-prefix <folder>' argument 'x' is invalid. put it after the --report it belongs to\n",
    ],
    [
      ['--report', 'a.info', '--path-prefix', 'x', '--path-prefix', 'y'],
      "covgate: error: option '--path-prefix <folder>' argument 'y' is invalid. --report a.info already has --path-prefix x\n",
    ],
    [
      ['--path-map', '/app'],
      "covgate: error: option '--path-map <from=to>' argument '/app' is invalid. not FROM=TO: write FROM=TO, e.g. /app/=\n",
    ],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await covgate(['report', ...target, ...args, '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(message.trimEnd());
  });

  it('--json lists the reports and the source files beside the verdict', async () => {
    const sent: unknown[] = [];
    const { code, stdout } = await covgate(
      ['report', ...target, ...both, '--json'],
      { NO_COLOR: '1' },
      async (input, init) => {
        const request = new Request(input, init);
        sent.push(await request.json());
        return Response.json(
          {
            id: 'exe_1',
            org: 'acme',
            repo: 'web',
            branch: 'main',
            commit: 'abcdef1',
            coverage: 100,
            baseline: 100,
            delta: '0.00',
            outcome: 'pass',
            created_at: '2026-11-25T10:00:00Z',
          },
          { status: 201 },
        );
      },
    );
    expect(code).toBe(0);
    expect(sent).toEqual([
      {
        repo: 'web',
        branch: 'main',
        coverage: 100,
        commit: 'abcdef1',
        files: bothEntries,
      },
    ]);
    const verdict = JSON.parse(stdout);
    expect(verdict).toMatchObject({
      outcome: 'pass',
      files: 2,
      reports: bothReports,
      source_files: bothFiles,
    });
  });
});

describe('help', () => {
  /** Each option of a command's help with its description, continuation lines joined. */
  async function optionHelp(command: string[]): Promise<string[]> {
    const result = await covgate([...command, '--help']);
    expect(result.code).toBe(0);
    const options = result.stdout.split('\nOptions:\n')[1]?.split('\n\n')[0] ?? '';
    return options
      .split(/\n(?= {2}-)/)
      .map((block) => block.replace(/\s+/g, ' ').trim())
      .filter(Boolean);
  }

  it.each(['run', 'report', 'validate', 'login', 'tokens list', 'tokens rotate', 'wait'])(
    'names the default of each option of %s once at most',
    async (command) => {
      const options = await optionHelp(command.split(' '));
      expect(options.length).toBeGreaterThan(2);
      for (const option of options)
        expect(option.match(/default/g)?.length ?? 0, option).toBeLessThan(2);
    },
  );

  it('says what --require-baseline does without it, once', async () => {
    const options = await optionHelp(['report']);
    expect(options.find((option) => option.startsWith('--require-baseline'))).toBe(
      '--require-baseline exit 1 when the base branch has no run to compare with (default: recorded as the first run, exit 0)',
    );
  });
});
