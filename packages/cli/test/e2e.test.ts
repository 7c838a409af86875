import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExecutionList } from '@covgate/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  run,
  type Started,
  startListening,
  startProcess,
  stop,
} from '../../../test/support/processes.js';
import { alive, waitForFile } from './process-probes.js';
import { C8, SAMPLE_TEST_FILE, writeSampleProject } from './support.js';

// End to end over real HTTP: the built `covgate` bin against the built reference server on
// its embedded store, as a CI job would run them.
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const serverDist = fileURLToPath(new URL('../../../examples/server/dist/', import.meta.url));
const built = existsSync(bin) && existsSync(join(serverDist, 'main.js'));
if (!built)
  console.warn('[covgate] CLI end-to-end tests SKIPPED: run `pnpm build` first (`pnpm test` does)');

const BRANCH_COMMIT = 'ABCDEF0123456789abcdef0123456789abcdef01';

// The sample project's tests under c8 with an lcov report, as a CI job's test command; TAP on
// every Node version (Node 23 and later print spec lines even off a terminal).
const SAMPLE_TESTS_UNDER_C8 = [
  C8,
  '--reporter=lcov',
  process.execPath,
  '--test',
  '--test-reporter=tap',
  SAMPLE_TEST_FILE,
];

// The arguments of a `covgate report` of the sample project's lcov report as web@main.
const REPORT_WEB_MAIN = [
  'report',
  '--repo',
  'web',
  '--branch',
  'main',
  '--report',
  'coverage/lcov.info',
];

// GitHub's example `pull_request` event (fixtures/README.md), its head commit, and the merge
// commit GitHub would run the workflow on.
const PR_EVENT = fileURLToPath(
  new URL('./fixtures/github/pull_request.opened.json', import.meta.url),
);
const PR_HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const MERGE_COMMIT = '9a2c5e1e8b0a4c0f6f3b1d7e2c4a6b8d0e1f2a3b';
// A Gitea instance's `pull_request` payload (fixtures/README.md) and its head commit, which is
// also the GITHUB_SHA of Gitea's run (refs/pull/2/head).
const GITEA_PR_EVENT = fileURLToPath(
  new URL('./fixtures/gitea/pull_request.synchronized.json', import.meta.url),
);
const GITEA_PR_HEAD = '788ed8d02d3b7fcfcf6386dbcbca696aa1d4dc25';

// A test command that cleans up on SIGINT: it writes its pid, and on the first SIGINT waits
// 500 ms, writes how many SIGINTs it got to the marker file and exits 0.
const TRAPPING_COMMAND = `
const fs = require('node:fs');
const [pidFile, marker] = process.argv.slice(2);
let count = 0;
process.on('SIGINT', () => {
  if (count++ === 0) setTimeout(() => { fs.writeFileSync(marker, String(count)); process.exit(0); }, 500);
});
fs.writeFileSync(pidFile, String(process.pid));
setInterval(() => {}, 1000);
`;

/** Writes TRAPPING_COMMAND to a new folder below `parent`: its command line and its files. */
async function writeTrappingCommand(parent: string) {
  const dir = await mkdtemp(join(parent, 'trap-'));
  const script = join(dir, 'trap.cjs');
  const pidFile = join(dir, 'pid');
  const marker = join(dir, 'marker');
  await writeFile(script, TRAPPING_COMMAND);
  return { command: [process.execPath, script, pidFile, marker], pidFile, marker };
}

/** Settles when `child` exits: its exit code and what the trapping command wrote to `marker`. */
function exitWithMarker(child: ChildProcess, marker: string) {
  return new Promise<{ code: number | null; marker: string | null }>((resolve) =>
    child.on('exit', (code) =>
      resolve({ code, marker: existsSync(marker) ? readFileSync(marker, 'utf8') : null }),
    ),
  );
}

const hasScript = process.platform === 'linux' && existsSync('/usr/bin/script');

/** `covgate run` as repo@branch with `flags`, up to the `--` before the test command. */
const runAs = (repo: string, branch: string, flags: string[] = []) => [
  'run',
  '--repo',
  repo,
  '--branch',
  branch,
  ...flags,
  '--',
];
const RUN_SIG_MAIN = runAs('sig', 'main');

describe.skipIf(!built && process.env.CI !== '1')(
  'covgate against the reference server',
  { timeout: 60_000 },
  () => {
    let workDir: string;
    let server: Started;
    let token: string;
    let session: string;
    let covered: string;
    let uncovered: string;

    const baseEnv = () => ({ PATH: process.env.PATH, HOME: workDir, NO_COLOR: '1' });
    const serviceEnv = () => ({ ...baseEnv(), COVGATE_URL: server.url, COVGATE_TOKEN: token });
    const covgate = (args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
      run(process.execPath, [bin, ...args], {
        cwd: options.cwd ?? covered,
        env: { ...serviceEnv(), ...options.env },
      });
    const list = async (repo: string) => {
      const answer = await fetch(`${server.url}/v1/executions?org=acme&repo=${repo}&limit=100`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await answer.json()) as ExecutionList;
    };

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'covgate-cli-e2e-'));
      const env = {
        PATH: process.env.PATH,
        HOME: workDir,
        PORT: '0',
        COVGATE_DATA_DIR: join(workDir, 'data'),
      };
      server = await startListening([join(serverDist, 'main.js')], { cwd: workDir, env });
      const admin = await run(
        process.execPath,
        [join(serverDist, 'admin.js'), 'bootstrap', 'acme'],
        {
          cwd: workDir,
          env,
        },
      );
      session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1] as string;
      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      token = ((await created.json()) as { secret: string }).secret;
      covered = await writeSampleProject({ coverClassify: true });
      uncovered = await writeSampleProject({ coverClassify: false });
    }, 120_000);

    afterAll(async () => {
      await stop(server);
      await rm(workDir, { recursive: true, force: true });
      await rm(covered, { recursive: true, force: true });
      await rm(uncovered, { recursive: true, force: true });
    });

    it('runs the tests under c8 with a filtered environment, posts the run and passes', async () => {
      const dump = join(workDir, 'env-seen.txt');
      const summary = join(workDir, 'step-summary.md');
      const result = await covgate(
        [
          ...runAs('web', 'main', ['--commit', BRANCH_COMMIT, '--pass-env', 'COVGATE_ENV_DUMP']),
          ...SAMPLE_TESTS_UNDER_C8,
        ],
        {
          env: {
            SERVICE_TOKEN: 'service-secret-of-the-parent',
            DATABASE_URL: 'mysql://root:pw@db/prod',
            REDIS_URL: 'redis://cache',
            COVGATE_ENV_DUMP: dump,
            GITHUB_STEP_SUMMARY: summary,
          },
        },
      );
      expect(result.code, result.stderr).toBe(0);
      // The test runner's own output streamed through.
      expect(result.stdout).toContain('# pass 2');
      // The first run of the repository: compared with nothing, and saying so.
      expect(result.stdout).toContain(
        'web@main: coverage 57.69%, no baseline on main yet: nothing to compare, recorded as the first run\n',
      );
      expect(result.stdout).not.toContain('delta');
      // No --report: covgate found c8's report and says so; c8's lcov carries branches.
      expect(result.stderr).toBe(
        'covgate: found coverage/lcov.info (lcov)\ncovgate: coverage/lcov.info (lcov): 15 of 26 lines in 1 file, 57.69%\ncovgate: branches: 9 of 12 in 1 file, 75.00% (shown, not gated)\ncovgate: Passed: no baseline, the base branch had no run to compare with, so the coverage change judged nothing.\n',
      );

      const seen = (await readFile(dump, 'utf8')).split('\n');
      for (const name of [
        'SERVICE_TOKEN',
        'DATABASE_URL',
        'REDIS_URL',
        'COVGATE_TOKEN',
        'COVGATE_URL',
      ]) {
        expect(seen).not.toContain(name);
      }
      expect(seen).toContain('PATH');
      expect(seen).toContain('COVGATE_ENV_DUMP');

      const records = await list('web');
      expect(records.total).toBe(1);
      expect(records.executions[0]).toMatchObject({
        branch: 'main',
        coverage: 57.69,
        outcome: 'pass',
        commit: BRANCH_COMMIT.toLowerCase(),
      });
      const written = await readFile(summary, 'utf8');
      expect(written).toContain(
        'No baseline on `main` yet: nothing to compare, recorded as the first run.\n',
      );
      expect(written).toContain('| 57.69% | none on `main` | 15 / 26 |');
      expect(written).not.toContain('0.00');
    });

    it('exits 1 with fail when coverage drops below the fail threshold', async () => {
      const tests = await covgate([...runAs('web', 'feature/drop'), ...SAMPLE_TESTS_UNDER_C8], {
        cwd: uncovered,
      });
      expect(tests.code, tests.stderr).toBe(1);
      expect(tests.stdout).toMatch(
        /fail web@feature\/drop: coverage (\d+\.\d\d)%, baseline 57\.69% on main, delta -\d+\.\d\d\n$/,
      );
      const records = await list('web');
      expect(records.total).toBe(2);
      expect(records.executions[0]).toMatchObject({ branch: 'feature/drop', outcome: 'fail' });
    });

    it('says a base branch without runs has no baseline, and fails under --require-baseline', async () => {
      const summary = join(workDir, 'no-baseline-summary.md');
      const line =
        'rel@feature: coverage 57.69%, no baseline on release-9 yet: nothing to compare, recorded as the first run\n';
      const args = [
        'report',
        '--repo',
        'rel',
        '--branch',
        'feature',
        '--report',
        'coverage/lcov.info',
        '--base-branch',
        'release-9',
        // The sample project is no git checkout: no patch to measure.
        '--allow-missing-patch',
      ];
      const recorded = await covgate(args, { env: { GITHUB_STEP_SUMMARY: summary } });
      expect(recorded.code, recorded.stderr).toBe(0);
      expect(recorded.stdout).toBe(line);
      expect(await readFile(summary, 'utf8')).toBe(
        [
          '### ℹ️ covgate: no baseline',
          '',
          '`rel` on `feature`',
          '',
          'No baseline on `release-9` yet: nothing to compare, recorded as the first run.',
          '',
          '| coverage | baseline | lines |',
          '|---:|---|---:|',
          '| 57.69% | none on `release-9` | 15 / 26 |',
          '',
          '',
        ].join('\n'),
      );

      const required = await covgate([...args, '--require-baseline']);
      expect(required.code).toBe(1);
      expect(required.stdout).toBe(line);
      expect(required.stderr.split('\n').at(-2)).toBe(
        'covgate: no baseline on release-9 and --require-baseline is set: the gate fails (post a run on release-9 first, or check --base-branch)',
      );

      const json = await covgate([...args, '--require-baseline', '--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({
        outcome: 'pass',
        base_branch: 'release-9',
        coverage: 57.69,
        baseline: null,
        exit_code: 1,
      });

      // Once release-9 has a run, the same command is compared with it and passes.
      const release = await covgate([
        ...args.slice(0, 3),
        '--branch',
        'release-9',
        ...args.slice(5),
      ]);
      expect(release.code, release.stderr).toBe(0);
      const compared = await covgate([...args, '--require-baseline']);
      expect(compared.code, compared.stderr).toBe(0);
      expect(compared.stdout).toBe(
        'pass rel@feature: coverage 57.69%, baseline 57.69% on release-9, delta 0.00\n',
      );
      const records = await list('rel');
      expect(records.executions.map((e) => [e.branch, e.baseline?.branch ?? null])).toEqual([
        ['feature', 'release-9'],
        ['release-9', null],
        ['feature', null],
        ['feature', null],
        ['feature', null],
      ]);
    });

    it("passes on the test command's own exit code and posts nothing when it fails", async () => {
      const failing = await covgate([
        ...runAs('web', 'broken'),
        process.execPath,
        '-e',
        'process.exitCode = 7',
      ]);
      expect(failing.code).toBe(7);
      expect(failing.stderr).toBe(
        'covgate: the test command exited with code 7; nothing was posted\n',
      );
      expect((await list('web')).total).toBe(2);
    });

    it('prints one JSON object and nothing else on stdout with --json (the tests print to stderr)', async () => {
      const result = await covgate([...runAs('api', 'main', ['--json']), ...SAMPLE_TESTS_UNDER_C8]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('# pass 2');
      const verdict = JSON.parse(result.stdout);
      expect(verdict).toMatchObject({
        outcome: 'pass',
        repo: 'api',
        branch: 'main',
        base_branch: 'main',
        coverage: 57.69,
        baseline: null,
        delta: '0.00',
        covered_lines: 15,
        coverable_lines: 26,
        files: 1,
        reports: [{ path: 'coverage/lcov.info', format: 'lcov' }],
        exit_code: 0,
      });
      expect(verdict.execution_id).toMatch(/^exe_/);
    });

    it('exits 3 when the service cannot be reached, without posting or a stack trace', async () => {
      // A port nothing listens on any more (fetch refuses some low ports, such as 9, outright).
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise((resolve) => closed.close(resolve));
      const result = await covgate(REPORT_WEB_MAIN, { env: { COVGATE_URL: url } });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(
        new RegExp(
          `^covgate: .*\\ncovgate: branches: .*\\ncovgate: the service at ${url.replace(/\./g, '\\.')} could not be reached: ECONNREFUSED \\(3 attempts over \\d+\\.\\d s\\); check --url / COVGATE_URL\\n$`,
        ),
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });

    it('exits 3 when the service refuses the token, and never prints the token', async () => {
      const wrong = `cvg_${'0'.repeat(40)}`;
      const result = await covgate(REPORT_WEB_MAIN, { env: { COVGATE_TOKEN: wrong } });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(
        'covgate: the service refused the credential (401 invalid token',
      );
      expect(result.stdout + result.stderr).not.toContain(wrong);
    });

    it('exits 2 naming a malformed report, with no stack trace', async () => {
      await writeFile(join(workDir, 'broken.info'), 'SF:a.js\nDA:1,1\n<html>\nend_of_record\n');
      const result = await covgate(
        ['report', '--repo', 'web', '--branch', 'main', '--report', '../broken.info'],
        { cwd: join(workDir, 'data') },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('covgate: ../broken.info: line 3: not an lcov entry\n');
      expect(result.stdout).toBe('');
    });

    it('exits 2 on a usage error before running anything', async () => {
      const noToken = await covgate([...runAs('web', 'main'), process.execPath, '-e', '0'], {
        env: { COVGATE_TOKEN: '' },
      });
      expect(noToken.code).toBe(2);
      expect(noToken.stderr).toBe(
        'covgate: no API token: set COVGATE_TOKEN (or COVGATE_TOKEN_FILE to a file holding it), e.g. from your CI secrets\n',
      );
      const forbidden = await covgate([
        ...runAs('web', 'main', ['--pass-env', 'DATABASE_URL']),
        process.execPath,
        '-e',
        '0',
      ]);
      expect(forbidden.code).toBe(2);
      expect(forbidden.stderr).toBe(
        'covgate: --pass-env DATABASE_URL: this variable is never passed to the test command\n',
      );
      const badFormat = await covgate(['report', '--format', 'xml']);
      expect(badFormat.code).toBe(2);
      expect(badFormat.stderr).toContain(
        "covgate: error: option '--format <format>' argument 'xml' is invalid.",
      );
    });

    it('validates the token, logs in, manages tokens and waits for a first run', async () => {
      const validated = await covgate(['validate']);
      expect(validated.code).toBe(0);
      expect(validated.stdout).toMatch(
        /^valid: token [0-9a-f]{32} of organisation acme, scopes execute\n$/,
      );

      const configDir = join(workDir, 'config');
      const env = { COVGATE_CONFIG_DIR: configDir, COVGATE_TOKEN: '' };
      const loginRun = run(
        'sh',
        ['-c', `printf '%s\\n' "$S" | "${process.execPath}" "${bin}" login`],
        {
          cwd: workDir,
          env: { ...baseEnv(), ...env, COVGATE_URL: server.url, S: session },
        },
      );
      const loggedIn = await loginRun;
      expect(loggedIn.code, loggedIn.stderr).toBe(0);
      expect(loggedIn.stderr).toMatch(
        /^covgate: logged in to http:\/\/127\.0\.0\.1:\d+ for organisation acme until \S+Z; stored in .*config\.json\n$/,
      );
      const file = join(configDir, 'config.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ url: server.url, session });

      // From here on the stored login is the credential, and its URL the service's.
      const people = (args: string[]) => covgate(args, { env: { ...env, COVGATE_URL: '' } });
      const created = await people(['tokens', 'create', 'laptop']);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/^cvg_[0-9a-f]{40}\n$/);
      const listed = await people(['tokens', 'list', '--json']);
      const tokens = JSON.parse(listed.stdout).tokens as {
        id: string;
        name: string;
        status: string;
      }[];
      const laptop = tokens.find((t) => t.name === 'laptop');
      expect(laptop?.status).toBe('active');
      const rotated = await people([
        'tokens',
        'rotate',
        laptop?.id as string,
        '--grace',
        '0',
        '--json',
      ]);
      expect(JSON.parse(rotated.stdout)).toMatchObject({
        old_token_id: laptop?.id,
        old_token_status: 'revoked',
      });
      const newId = JSON.parse(rotated.stdout).id as string;
      const revoked = await people(['tokens', 'revoke', newId]);
      expect([revoked.code, revoked.stderr]).toEqual([0, `covgate: token ${newId} revoked\n`]);
      const table = await people(['tokens', 'list']);
      expect(table.stdout.split('\n')[0]).toMatch(
        /^ID {32}NAME +STATUS +SCOPES +CREATED +LAST USED$/,
      );
      expect(table.stdout).toMatch(
        new RegExp(`\\n${newId}  laptop +revoked +execute +\\S+Z +never\\n`),
      );

      // `api` has one record (the --json run): the poll finds it at once.
      const waited = await covgate(['wait', '--repo', 'api']);
      expect([waited.code, waited.stdout]).toEqual([
        0,
        'api@main: coverage 57.69%, no baseline yet: nothing to compare, recorded as the first run\n',
      ]);
      expect(waited.stderr).toBe('covgate: waiting for the first run of acme/api (every 5 s)\n');
    });

    it('posts the head commit of a GitHub pull request from its event file, not the merge commit', async () => {
      // The sample project is no git checkout: the run goes without its patch.
      const args = ['report', '--report', 'coverage/lcov.info', '--allow-missing-patch'];
      const result = await covgate(args, {
        env: {
          GITHUB_ACTIONS: 'true',
          GITHUB_REPOSITORY: 'Codertocat/Hello-World',
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: PR_EVENT,
          GITHUB_REF: 'refs/pull/2/merge',
          GITHUB_HEAD_REF: 'changes',
          GITHUB_BASE_REF: 'master',
          GITHUB_SHA: MERGE_COMMIT,
        },
      });
      expect(result.code, result.stderr).toBe(0);
      const records = await list('Hello-World');
      expect(records.total).toBe(1);
      expect(records.executions[0]).toMatchObject({ branch: 'changes', commit: PR_HEAD });
    });

    it('posts a Gitea Actions pull request as Gitea names it: head commit, number and the instance URL', async () => {
      const args = ['report', '--report', 'coverage/lcov.info', '--allow-missing-patch', '--json'];
      const result = await covgate(args, {
        env: {
          GITHUB_ACTIONS: 'true',
          GITEA_ACTIONS: 'true',
          GITHUB_SERVER_URL: 'https://gitea.example.com/',
          GITHUB_API_URL: 'https://gitea.example.com/api/v1',
          GITHUB_REPOSITORY: 'Test-CI/multi-line-secrets',
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: GITEA_PR_EVENT,
          GITHUB_REF: 'refs/pull/2/head',
          GITHUB_HEAD_REF: 'test-patch-1',
          GITHUB_BASE_REF: 'main',
          GITHUB_SHA: GITEA_PR_HEAD,
        },
      });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        repo: 'multi-line-secrets',
        branch: 'test-patch-1',
        base_branch: 'main',
        commit: GITEA_PR_HEAD,
        feedback: { commit: 'full', pull_request: 2 },
      });
      const settings = await fetch(
        `${server.url}/v1/repos/settings?org=acme&repo=multi-line-secrets`,
        { headers: { authorization: `Bearer ${session}` } },
      );
      expect(((await settings.json()) as { web_url: string | null }).web_url).toBe(
        'https://gitea.example.com/Test-CI/multi-line-secrets',
      );
    });

    it('fails a pull request whose changed lines miss --patch-target, naming the patch rule', async () => {
      // main holds area(); the branch adds classify() and perimeter(), which no test runs.
      const project = await writeSampleProject({ coverClassify: false });
      const env = { ...baseEnv(), GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t.invalid' };
      const git = (...args: string[]) =>
        run('git', args, {
          cwd: project,
          env: { ...env, GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t.invalid' },
        });
      try {
        const shapes = join(project, 'src', 'shapes.mjs');
        const full = await readFile(shapes, 'utf8');
        await writeFile(shapes, full.slice(0, full.indexOf('export function classify')));
        await git('init', '-q', '-b', 'main');
        await git('add', '-A');
        await git('commit', '-q', '-m', 'base');
        await git('checkout', '-q', '-b', 'shapes');
        await writeFile(shapes, full);
        await git('commit', '-q', '-am', 'classify and perimeter');
        const result = await covgate(
          [
            'run',
            '--repo',
            'patched',
            '--base-branch',
            'main',
            '--patch-target',
            '80',
            '--',
            ...SAMPLE_TESTS_UNDER_C8,
          ],
          { cwd: project },
        );
        expect(result.code, result.stderr).toBe(1);
        // c8's exact line counts vary with Node's V8; the rule's outcome does not.
        expect(result.stderr).toMatch(
          /covgate: patch: \d of \d+ changed lines covered, \d+\.\d\d% \(\d+ lines changed in 1 file since [0-9a-f]{12}, the merge base with main\)\n/,
        );
        expect(result.stdout).toMatch(
          /^fail patched@shapes: coverage \d+\.\d\d%, no baseline on main yet: nothing to compare, recorded as the first run, patch \d+\.\d\d% \(\d of \d+ lines, target 80\.00%\); failed by the patch rule \(patch coverage below its target\)\n$/m,
        );
        // The service applied the patch rule and recorded its verdict, though nothing was
        // there to compare the total with.
        expect((await list('patched')).executions[0]).toMatchObject({
          branch: 'shapes',
          outcome: 'fail',
          decided_by: 'patch',
          baseline: null,
          patch: { target: 80, target_source: 'run', passed: false },
        });
      } finally {
        await rm(project, { recursive: true, force: true });
      }
    });

    it('ends within the time-out against a server that accepts and never answers', async () => {
      const sockets: Socket[] = [];
      const silent = createServer((socket) => {
        sockets.push(socket);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const pattern = (timeout: number, whole: string) =>
        `the service at ${url.replace(/\./g, '\\.')} did not answer within ${timeout} s \\(3 attempts over ${whole}\\.\\d s\\)`;
      try {
        const started = Date.now();
        const result = await covgate([...REPORT_WEB_MAIN, '--timeout', '2'], {
          env: { COVGATE_URL: url },
        });
        const seconds = (Date.now() - started) / 1000;
        expect(result.code).toBe(3);
        // Three attempts of 2 s and the back-off between them (0.3 to 0.6 s).
        expect(result.stderr.split('\n').at(-2)).toMatch(
          new RegExp(`^covgate: ${pattern(2, '[67]')}$`),
        );
        expect(seconds).toBeGreaterThanOrEqual(6);
        expect(seconds).toBeLessThan(20);

        const unsent = await mkdtemp(join(workDir, 'unsent-'));
        const allowed = await covgate(
          [...REPORT_WEB_MAIN, '--timeout', '1', '--allow-unreachable'],
          {
            env: { COVGATE_URL: url, COVGATE_UNSENT_DIR: unsent },
          },
        );
        expect(allowed.code).toBe(0);
        expect(allowed.stdout).toMatch(
          /^web@main: coverage \d+\.\d\d%, no patch; project rule not evaluated \(service unavailable\)\n$/,
        );
        expect(allowed.stderr.split('\n').at(-4)).toMatch(
          new RegExp(
            `^covgate: warning: ${pattern(1, '[34]')}; the run was not posted \\(--allow-unreachable\\)$`,
          ),
        );
        expect(await readdir(unsent)).toHaveLength(1);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('passes SIGINT to the test command once, waits for it to exit, and exits 130', async () => {
      const trap = await writeTrappingCommand(workDir);
      // A process group of its own, as under a CI runner: only covgate gets the signal.
      const started = startProcess(process.execPath, [bin, ...RUN_SIG_MAIN, ...trap.command], {
        cwd: covered,
        env: serviceEnv(),
      });
      const exited = exitWithMarker(started.child, trap.marker);
      try {
        const childPid = Number(await waitForFile(trap.pidFile, 30_000));
        process.kill(started.child.pid as number, 'SIGINT');
        // The marker is written 500 ms after the test command got SIGINT, just before it
        // exits: it is there when covgate exits, and says one SIGINT arrived.
        expect(await exited).toEqual({ code: 130, marker: '1' });
        expect(alive(childPid)).toBe(false);
        await started.allOutput();
        expect(started.stderr()).toBe(
          'covgate: interrupted by SIGINT; the test command exited with code 0; nothing was posted\n',
        );
        expect((await list('sig')).total).toBe(0);
      } finally {
        await started.stop('SIGKILL');
      }
    });

    it.skipIf(!hasScript)(
      "lets a terminal's Ctrl-C reach the test command once, not a second time through covgate",
      async () => {
        const trap = await writeTrappingCommand(workDir);
        const quote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`;
        const command = [process.execPath, bin, ...RUN_SIG_MAIN, ...trap.command]
          .map(quote)
          .join(' ');
        // util-linux `script` runs the command in the foreground of a new pseudo-terminal; a
        // ^C written to it makes the terminal send SIGINT to covgate and the test command.
        const terminal = startProcess('script', ['-qfec', command, '/dev/null'], {
          cwd: covered,
          env: serviceEnv(),
          stdin: 'pipe',
        });
        const exited = exitWithMarker(terminal.child, trap.marker);
        try {
          await waitForFile(trap.pidFile, 30_000);
          terminal.child.stdin?.write('\x03');
          expect(await exited).toEqual({ code: 130, marker: '1' });
          await terminal.allOutput();
          expect(terminal.stdout()).toContain(
            'covgate: interrupted by SIGINT; the test command exited with code 0; nothing was posted',
          );
        } finally {
          await terminal.stop('SIGKILL');
        }
      },
    );
  },
);
