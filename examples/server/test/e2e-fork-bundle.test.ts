import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { listen, type RunningServer } from '@covgate/test-support/http-server';
import { run } from '@covgate/test-support/processes';
import { type FakeGithubRest, startFakeGithubRest } from '@covgate/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

// A fork's pull request end to end (issue 41, deliverable 2): the built CLI writes a bundle in
// the fork's pull_request job, posts it from the workflow_run job to the built reference
// server, and the outbox sets the statuses on the pull request's head commit and comments on
// it at a fake GitHub, from GitHub's own example workflow_run event (no pull request listed,
// as GitHub sends a fork's).

const cli = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url));
const fixtures = fileURLToPath(
  new URL('../../../packages/cli/test/fixtures/github/', import.meta.url),
);
const built = isServerBuilt() && existsSync(cli);
const SESSION_SECRET = 'e2e-fork-bundle-session-secret-0123456789ab';
const GITHUB_TOKEN = 'github_pat_e2eFORKbundle0123456789';
const GITHUB_REPO = 'octo-org/octo-repo';
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));
const fixture = (name: string) => JSON.parse(readFileSync(join(fixtures, name), 'utf8'));
const lcov = (hits: number[]) =>
  `SF:src/a.js\n${hits.map((count, index) => `DA:${index + 1},${count}`).join('\n')}\nend_of_record\n`;

describe.skipIf(!built && process.env.CI !== '1')(
  "a fork's pull request through a bundle, to the fake GitHub",
  { timeout: 180_000 },
  () => {
    let fake: FakeGithubRest;
    let pulls: RunningServer;
    let server: BuiltServer;
    let dataDir: string;
    let token: string;
    let pullBody: Record<string, unknown> = {};

    const env = (cwd: string, extra: Record<string, string> = {}) => ({
      PATH: process.env.PATH,
      HOME: dataDir,
      NO_COLOR: '1',
      PWD: cwd,
      COVGATE_URL: server.url,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
      ...extra,
    });
    const covgate = (cwd: string, args: string[], extra: Record<string, string> = {}) =>
      run(process.execPath, [cli, ...args], { cwd, env: env(cwd, extra) });
    const git = async (cwd: string, ...args: string[]) => {
      const result = await run('git', args, { cwd, env: env(cwd) });
      expect(result.code, result.stderr).toBe(0);
      return result.stdout.trim();
    };

    beforeAll(async () => {
      fake = await startFakeGithubRest();
      fake.allowToken(GITHUB_TOKEN, [GITHUB_REPO]);
      // GitHub's "get a pull request", for the fork's pull request the event does not list.
      pulls = await listen((request, response) => {
        const found = request.url === `/repos/${GITHUB_REPO}/pulls/2`;
        response.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
        response.end(JSON.stringify(found ? pullBody : { message: 'Not Found' }));
      });
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-fork-'));
      const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
      const boot = await bootstrapOrganisation(store, {
        slug: `fork-${Date.now().toString(36)}`,
        plan: 'enterprise',
        userId: 'usr_fork_owner',
        sessionSecret: SESSION_SECRET,
        sessionLifetimeSeconds: undefined,
      });
      const orgId = boot.organisation.id;
      const now = new Date();
      await store.putRepositoryLink({
        orgId,
        repo: 'octo-repo',
        host: 'github',
        repository: GITHUB_REPO,
        apiUrl: fake.apiUrl,
        credential: encryptCredential(
          GITHUB_TOKEN,
          repositoryLinkCredentialContext(orgId, 'octo-repo'),
          { sessionSecret: SESSION_SECRET },
        ),
        credentialHint: '…6789',
        createdBy: 'usr_fork_owner',
        createdAt: now,
        updatedAt: now,
      });
      await store.close();
      server = await startBuiltServer({
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        PORT: '0',
        COVGATE_DATA_DIR: dataDir,
        SESSION_SECRET,
        PUBLIC_URL: 'https://covgate.example.com',
        OUTBOX_POLL_SECONDS: '1',
        ALLOW_PRIVATE_CODE_HOSTS: '1',
      });
      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${boot.sessionToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'ci' }),
      });
      token = ((await created.json()) as { secret: string }).secret;
    }, 180_000);

    afterAll(async () => {
      await server?.stop('SIGTERM');
      await pulls?.close();
      await fake?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('sets the statuses on the head commit and comments on the pull request', async () => {
      // main: three covered lines; the fork's branch adds four, the tests run one of them.
      const repo = await mkdtemp(join(dataDir, 'repo-'));
      await mkdir(join(repo, 'src'));
      await writeFile(join(repo, 'src', 'a.js'), 'a();\nb();\nc();\n');
      await writeFile(join(repo, '.gitignore'), 'lcov.info\nbundle.json\n');
      await git(repo, 'init', '-q', '-b', 'main');
      await git(repo, 'add', '-A');
      await git(repo, 'commit', '-q', '-m', 'base');
      const base = await git(repo, 'rev-parse', 'HEAD');
      await writeFile(join(repo, 'lcov.info'), lcov([1, 1, 1]));
      const onMain = await covgate(
        repo,
        ['report', '--report', 'lcov.info', '--repo', 'octo-repo', '--commit', base],
        {
          COVGATE_TOKEN: token,
        },
      );
      expect(onMain.code, onMain.stderr).toBe(0);
      await git(repo, 'checkout', '-q', '-b', 'changes');
      await writeFile(join(repo, 'src', 'a.js'), 'a();\nb();\nc();\nd();\ne();\nf();\ng();\n');
      await git(repo, 'commit', '-q', '-am', 'untested lines');
      const head = await git(repo, 'rev-parse', 'HEAD');
      await writeFile(join(repo, 'lcov.info'), lcov([1, 1, 1, 1, 0, 0, 0]));

      // The fork's pull_request job: GitHub's event at the fork's head, no covgate token.
      const event = fixture('pull_request.opened.json');
      event.pull_request.head.sha = head;
      event.pull_request.head.ref = 'changes';
      event.pull_request.base.ref = 'main';
      await writeFile(join(dataDir, 'pull_request.json'), JSON.stringify(event));
      const written = await covgate(repo, ['run', '--bundle', 'bundle.json', '--', 'true'], {
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: join(dataDir, 'pull_request.json'),
        GITHUB_REPOSITORY: 'forker/octo-repo',
        GITHUB_REF: 'refs/pull/2/merge',
        GITHUB_HEAD_REF: 'changes',
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: 'c'.repeat(40),
      });
      expect(written.code, written.stderr).toBe(0);

      // The workflow_run job of the base repository, with the secret.
      pullBody = {
        ...event.pull_request,
        head: { ...event.pull_request.head, repo: { full_name: 'forker/octo-repo' } },
        base: { ...event.pull_request.base, repo: { full_name: GITHUB_REPO } },
      };
      const runEvent = fixture('workflow_run.completed.payload.json');
      runEvent.workflow_run.event = 'pull_request';
      runEvent.workflow_run.head_sha = head;
      runEvent.workflow_run.head_branch = 'changes';
      runEvent.workflow_run.head_repository.full_name = 'forker/octo-repo';
      expect(runEvent.workflow_run.pull_requests).toEqual([]);
      expect(runEvent.repository.full_name).toBe(GITHUB_REPO);
      const job = await mkdtemp(join(dataDir, 'workflow-run-'));
      await writeFile(join(job, 'event.json'), JSON.stringify(runEvent));
      const posted = await covgate(
        job,
        [
          'report',
          '--bundle',
          join(repo, 'bundle.json'),
          '--fail-threshold',
          '50',
          '--warn-threshold',
          '50',
        ],
        {
          COVGATE_TOKEN: token,
          GITHUB_ACTIONS: 'true',
          GITHUB_EVENT_NAME: 'workflow_run',
          GITHUB_EVENT_PATH: join(job, 'event.json'),
          GITHUB_REPOSITORY: GITHUB_REPO,
          GITHUB_API_URL: pulls.origin,
          GITHUB_TOKEN: 'ghs_job_token',
        },
      );
      // The patch, 1 of 4 changed lines, is under the default target of 80.
      expect(posted.code, posted.stderr).toBe(1);
      expect(posted.stdout).toBe(
        'fail octo-repo@forker:changes: coverage 57.14%, baseline 100.00% on main, delta -42.86, patch 25.00% (1 of 4 lines, target 80.00%); failed by the patch rule (patch coverage below its target)\n',
      );

      await expect
        .poll(() => fake.statuses.filter((s) => s.sha === head).length, { timeout: 30_000 })
        .toBe(2);
      expect(
        fake.statuses
          .filter((s) => s.sha === head)
          .map((s) => [s.repo, s.context, s.state])
          .sort(),
      ).toEqual([
        [GITHUB_REPO, 'covgate/patch', 'failure'],
        [GITHUB_REPO, 'covgate/project', 'failure'],
      ]);
      await expect.poll(() => fake.commentsOf(GITHUB_REPO, 2).length, { timeout: 30_000 }).toBe(1);
      expect(fake.commentsOf(GITHUB_REPO, 2)[0]?.body).toContain('25.00%');
      expect(server.output()).not.toContain(GITHUB_TOKEN);
    });
  },
);
