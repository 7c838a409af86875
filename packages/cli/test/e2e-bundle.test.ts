import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '../../../test/support/built-server.js';
import { listenForTest } from '../../../test/support/http-server.js';
import { run } from '../../../test/support/processes.js';

// Fork pull requests end to end: the built `covgate` writes a bundle in a `pull_request` job
// without any credential, and posts it from a `workflow_run` job to the built reference
// server, checked against GitHub's own event payloads (fixtures/README.md).

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const built = existsSync(bin) && isServerBuilt();
const serverDist = fileURLToPath(new URL('../../../examples/server/dist/', import.meta.url));
const fixture = (name: string) =>
  JSON.parse(
    readFileSync(fileURLToPath(new URL(`./fixtures/github/${name}`, import.meta.url)), 'utf8'),
  );

const lcov = (hits: number[]) =>
  `SF:src/a.js\n${hits.map((count, index) => `DA:${index + 1},${count}`).join('\n')}\nend_of_record\n`;

/** What the tests change of a `workflow_run` event's run. */
interface WorkflowRunPayload {
  event: string;
  head_sha: string;
  head_branch: string;
  head_repository: { full_name: string };
  pull_requests: { number: number; head: { sha: string; ref: string }; base: { ref: string } }[];
}

describe.skipIf(!built && process.env.CI !== '1')(
  'a fork pull request posted from a bundle',
  { timeout: 120_000 },
  () => {
    let workDir: string;
    let server: BuiltServer;
    let token: string;
    let org: string;
    let repo: string;
    let head: string;
    let bundle: string;

    const baseEnv = (cwd: string) => ({
      PATH: process.env.PATH,
      HOME: workDir,
      NO_COLOR: '1',
      PWD: cwd,
      COVGATE_URL: server.url,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
    });
    const covgate = (cwd: string, args: string[], env: Record<string, string> = {}) =>
      run(process.execPath, [bin, ...args], { cwd, env: { ...baseEnv(cwd), ...env } });
    const git = async (cwd: string, ...args: string[]) => {
      const result = await run('git', args, { cwd, env: baseEnv(cwd) });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim();
    };
    const list = async (name: string) => {
      const answer = await fetch(`${server.url}/v1/executions?org=${org}&repo=${name}&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await answer.json()) as { executions: Record<string, unknown>[]; total: number };
    };

    /** The `workflow_run` job: GitHub's event file, with the run's head and pull requests. */
    const workflowRunJob = async (
      name: string,
      change: (run: WorkflowRunPayload) => void,
      listed = true,
    ): Promise<{ dir: string; env: Record<string, string> }> => {
      const payload = fixture(
        listed
          ? 'workflow_run.completed.with-pull-requests.payload.json'
          : 'workflow_run.completed.payload.json',
      );
      const run = payload.workflow_run as WorkflowRunPayload;
      run.event = 'pull_request';
      run.head_sha = head;
      run.head_branch = 'changes';
      for (const pull of run.pull_requests) {
        pull.number = 2;
        pull.head.sha = head;
        pull.head.ref = 'changes';
        pull.base.ref = 'main';
      }
      change(run);
      const dir = await mkdtemp(join(workDir, `${name}-`));
      const event = join(dir, 'event.json');
      await writeFile(event, JSON.stringify(payload));
      return {
        dir,
        env: {
          COVGATE_TOKEN: token,
          GITHUB_ACTIONS: 'true',
          GITHUB_EVENT_NAME: 'workflow_run',
          GITHUB_EVENT_PATH: event,
          GITHUB_REPOSITORY: 'octo-org/octo-repo',
          GITHUB_SERVER_URL: 'https://github.com',
          GITHUB_REF: 'refs/heads/master',
          GITHUB_SHA: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
        },
      };
    };

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'covgate-bundle-e2e-'));
      org = `forks-${Date.now().toString(36)}`;
      const serverEnv = {
        PATH: process.env.PATH,
        HOME: workDir,
        PORT: '0',
        COVGATE_DATA_DIR: join(workDir, 'data'),
      };
      server = await startBuiltServer(serverEnv);
      const admin = await run(process.execPath, [join(serverDist, 'admin.js'), 'bootstrap', org], {
        cwd: workDir,
        env: serverEnv,
      });
      const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1] as string;
      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      token = ((await created.json()) as { secret: string }).secret;

      // main: three covered lines, posted as the baseline; the pull request's branch adds four
      // lines of which the tests run one.
      repo = await mkdtemp(join(workDir, 'repo-'));
      await mkdir(join(repo, 'src'));
      await writeFile(join(repo, 'src', 'a.js'), 'a();\nb();\nc();\n');
      await writeFile(join(repo, '.gitignore'), 'lcov.info\nbundle.json\n');
      await git(repo, 'init', '-q', '-b', 'main');
      await git(repo, 'add', '-A');
      await git(repo, 'commit', '-q', '-m', 'base');
      await writeFile(join(repo, 'lcov.info'), lcov([1, 1, 1]));
      for (const name of ['octo-repo', 'forked', 'hostile']) {
        const onMain = await covgate(
          repo,
          ['report', '--report', 'lcov.info', '--repo', name, '--branch', 'main'],
          { COVGATE_TOKEN: token },
        );
        expect(onMain.code, onMain.stderr).toBe(0);
      }
      await git(repo, 'checkout', '-q', '-b', 'changes');
      await writeFile(join(repo, 'src', 'a.js'), 'a();\nb();\nc();\nd();\ne();\nf();\ng();\n');
      await git(repo, 'commit', '-q', '-am', 'untested lines');
      head = await git(repo, 'rev-parse', 'HEAD');
      await writeFile(join(repo, 'lcov.info'), lcov([1, 1, 1, 1, 0, 0, 0]));

      // The pull_request job of a fork: GitHub's pull_request event at this head, no secret.
      const event = fixture('pull_request.opened.json');
      event.pull_request.head.sha = head;
      event.pull_request.head.ref = 'changes';
      event.pull_request.base.ref = 'main';
      await writeFile(join(workDir, 'pull_request.json'), JSON.stringify(event));
      const written = await covgate(repo, ['run', '--bundle', 'bundle.json', '--', 'true'], {
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: join(workDir, 'pull_request.json'),
        GITHUB_REPOSITORY: 'forker/octo-repo',
        GITHUB_REF: 'refs/pull/2/merge',
        GITHUB_HEAD_REF: 'changes',
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: '9a2c5e1e8b0a4c0f6f3b1d7e2c4a6b8d0e1f2a3b',
      });
      expect(written.code, written.stderr).toBe(0);
      expect(written.stdout).toBe('');
      expect(written.stderr.split('\n').at(-2)).toBe(
        `covgate: wrote the bundle bundle.json (1 file, commit ${head.slice(0, 12)}, pull request #2); nothing was posted: a workflow_run job posts it with covgate report --bundle bundle.json`,
      );
      bundle = join(repo, 'bundle.json');
    }, 180_000);

    afterAll(async () => {
      await server?.stop('SIGTERM');
      await rm(workDir, { recursive: true, force: true });
    });

    it('writes the figures, the lines and the patch, and no credential', async () => {
      const text = await readFile(bundle, 'utf8');
      expect(JSON.parse(text)).toEqual({
        covgate_bundle: 1,
        cli_version: JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
          .version,
        commit: head,
        pull_request: 2,
        branch: 'changes',
        base_branch: 'main',
        files: [
          {
            path: 'src/a.js',
            covered: 4,
            coverable: 7,
            lines: { coverable: [1, 2, 3, 4, 5, 6, 7], covered: [1, 2, 3, 4] },
          },
        ],
        patch: {
          base_ref: 'main',
          merge_base: JSON.parse(text).patch.merge_base,
          changed: [{ path: 'src/a.js', ranges: [[4, 4]] }],
        },
        patch_skipped: null,
      });
      expect(JSON.parse(text).patch.merge_base).toBe(await git(repo, 'rev-parse', 'main'));
    });

    it("posts a listed pull request's bundle as its run, judged by the trusted job's rules", async () => {
      const job = await workflowRunJob('same', () => {});
      const posted = await covgate(
        job.dir,
        [
          'report',
          '--bundle',
          bundle,
          '--patch-target',
          '80',
          '--fail-threshold',
          '50',
          '--warn-threshold',
          '50',
        ],
        job.env,
      );
      expect(posted.code, posted.stderr).toBe(1);
      expect(posted.stdout).toBe(
        'fail octo-repo@changes: coverage 57.14%, baseline 100.00% on main, delta -42.86, patch 25.00% (1 of 4 lines, target 80.00%); failed by the patch rule (patch coverage below its target)\n',
      );
      expect(posted.stderr).toContain(
        `covgate: bundle ${bundle} (written by covgate 0.1.0) is of pull request #2 at ${head}, the workflow run's head commit\n`,
      );
      const { executions, total } = await list('octo-repo');
      expect(total).toBe(2);
      expect(executions[0]).toMatchObject({
        branch: 'changes',
        commit: head,
        pull_request: 2,
        coverage: 57.14,
        outcome: 'fail',
        decided_by: 'patch',
        patch: { covered: 1, coverable: 4, target: 80, passed: false },
      });
    });

    it("asks GitHub's API for a fork's pull request, which the event does not list", async () => {
      const asked: { url: string; authorization: string | undefined }[] = [];
      const pulls = fixture('pull_request.opened.json').pull_request;
      pulls.head.sha = head;
      pulls.head.repo.full_name = 'forker/octo-repo';
      pulls.base.repo.full_name = 'octo-org/octo-repo';
      pulls.base.ref = 'main';
      const api = await listenForTest((request, response) => {
        asked.push({ url: request.url ?? '', authorization: request.headers.authorization });
        response.writeHead(request.url === '/repos/octo-org/octo-repo/pulls/2' ? 200 : 404, {
          'content-type': 'application/json',
        });
        response.end(JSON.stringify(pulls));
      });
      const job = await workflowRunJob(
        'fork',
        (run) => {
          expect(run.pull_requests).toEqual([]);
          run.head_repository.full_name = 'forker/octo-repo';
        },
        false,
      );
      const posted = await covgate(
        job.dir,
        [
          'report',
          '--bundle',
          bundle,
          '--repo',
          'forked',
          '--fail-threshold',
          '50',
          '--patch-target',
          '20',
        ],
        { ...job.env, GITHUB_API_URL: api.origin, GITHUB_TOKEN: 'ghs_job_token' },
      );
      expect(posted.code, posted.stderr).toBe(0);
      expect(posted.stdout).toMatch(/^warn forked@forker:changes: coverage 57\.14%/);
      expect(asked).toEqual([
        { url: '/repos/octo-org/octo-repo/pulls/2', authorization: 'Bearer ghs_job_token' },
      ]);
      expect((await list('forked')).executions[0]).toMatchObject({
        branch: 'forker:changes',
        commit: head,
        pull_request: 2,
        patch: { covered: 1, coverable: 4, target: 20, passed: true },
      });
    });

    it('posts nothing for a bundle of another commit, or a tampered one', async () => {
      const other = 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e';
      const job = await workflowRunJob('hostile', (run) => {
        run.head_sha = other;
        for (const pull of run.pull_requests) pull.head.sha = other;
      });
      const wrong = await covgate(
        job.dir,
        ['report', '--bundle', bundle, '--repo', 'hostile'],
        job.env,
      );
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toBe(
        `covgate: the bundle is of commit ${head}, and the workflow run's head commit is ${other}: it belongs to another run; nothing was posted\n`,
      );
      const tampered = JSON.parse(await readFile(bundle, 'utf8'));
      tampered.files[0].path = '../../outside.js';
      await writeFile(join(job.dir, 'tampered.json'), JSON.stringify(tampered));
      const refused = await covgate(
        job.dir,
        ['report', '--bundle', 'tampered.json', '--repo', 'hostile'],
        job.env,
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        'covgate: --bundle tampered.json: not a valid bundle: files[0].path "../../outside.js": a ".." segment; nothing was posted\n',
      );
      expect((await list('hostile')).total).toBe(1);
    });

    it('refuses a branch rule it cannot judge: a bundle carries lines, not branches', async () => {
      const job = await workflowRunJob('branch-rule', () => {});
      const refused = await covgate(
        job.dir,
        ['report', '--bundle', bundle, '--repo', 'branch-rule', '--branch-target', '70'],
        job.env,
      );
      expect(refused.code).toBe(2);
      expect(
        refused.stderr
          .split('\n')
          .filter((line) => line !== '')
          .at(-1),
      ).toBe(
        `covgate: --bundle ${bundle}: the branch rule needs branch data, and a bundle carries lines only; nothing was posted. Remove branch_target and patch.branch_target for fork pull requests`,
      );
      expect((await list('branch-rule')).total).toBe(0);
    });
  },
);
