import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Store } from '@covgate/core';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { run } from '@covgate/test-support/processes';
import { type FakeGithubRest, startFakeGithubRest } from '@covgate/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

// A required `covgate/project` that never waits forever (issue 41), end to end: the built
// `covgate` CLI in a GitHub Actions job (a real event payload in GITHUB_EVENT_PATH) against the
// built reference server, whose outbox sets the statuses on a fake GitHub.

const CLI = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url));
const built = isServerBuilt() && existsSync(CLI);
const SESSION_SECRET = 'e2e-required-checks-secret-0123456789abcdef';
const GITHUB_TOKEN = 'github_pat_e2eREQUIREDchecks0123456789';
const GITHUB_REPO = 'Codertocat/Hello-World';
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

// GitHub's example `pull_request` event (packages/cli/test/fixtures/README.md): pull request 2,
// head `changes` at ec26c3e, base `master`.
const PR_EVENT = fileURLToPath(
  new URL('../../../packages/cli/test/fixtures/github/pull_request.opened.json', import.meta.url),
);
const PR_HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
// GitHub's example `merge_group` `checks_requested` event (the same README): a merge queue's
// commit on its temporary branch, queued into `main` of octo-org/octo-repo.
const QUEUE_EVENT = fileURLToPath(
  new URL(
    '../../../packages/cli/test/fixtures/github/merge_group.checks_requested.json',
    import.meta.url,
  ),
);
const QUEUE_REPO = 'octo-org/octo-repo';
const QUEUE_COMMIT = '2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d';
const QUEUE_BRANCH = 'gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64';
const BASE_COMMIT = 'f'.repeat(40);

const statusesOf = (fake: FakeGithubRest, sha: string) =>
  fake.statuses.filter((status) => status.sha === sha);

/** Links covgate's `repo` to the fake's repository `repository`. */
async function link(
  store: Store,
  fake: FakeGithubRest,
  orgId: string,
  repo: string,
  repository: string,
  githubToken = GITHUB_TOKEN,
) {
  const now = new Date();
  await store.putRepositoryLink({
    orgId,
    repo,
    host: 'github',
    repository,
    apiUrl: fake.apiUrl,
    credential: encryptCredential(githubToken, repositoryLinkCredentialContext(orgId, repo), {
      sessionSecret: SESSION_SECRET,
    }),
    credentialHint: '…6789',
    createdBy: 'usr_checks_owner',
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * An organisation with an owner's session, `Hello-World` and `octo-repo` linked to the fake's
 * repositories; `Revoked` linked with a token GitHub does not know, `Hidden` to a repository
 * the link's token may not see.
 */
async function givenLinkedOrganisation(store: Store, fake: FakeGithubRest) {
  const boot = await bootstrapOrganisation(store, {
    slug: `checks-${Date.now().toString(36)}`,
    plan: 'enterprise',
    userId: 'usr_checks_owner',
    sessionSecret: SESSION_SECRET,
    sessionLifetimeSeconds: undefined,
  });
  const orgId = boot.organisation.id;
  await link(store, fake, orgId, 'Hello-World', GITHUB_REPO);
  await link(store, fake, orgId, 'octo-repo', QUEUE_REPO);
  await link(store, fake, orgId, 'Revoked', 'Codertocat/Revoked', 'github_pat_e2eREVOKED0123');
  await link(store, fake, orgId, 'Hidden', 'Codertocat/Hidden');
  return { slug: boot.organisation.slug, session: boot.sessionToken };
}

describe.skipIf(!built && process.env.CI !== '1')(
  'required checks on the built reference server',
  { timeout: 60_000 },
  () => {
    let fake: FakeGithubRest;
    let server: BuiltServer;
    let dataDir: string;
    let session: string;
    let token: string;
    let slug: string;

    beforeAll(async () => {
      fake = await startFakeGithubRest();
      fake.allowToken(GITHUB_TOKEN, [GITHUB_REPO, QUEUE_REPO]);
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-checks-'));
      const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
      ({ slug, session } = await givenLinkedOrganisation(store, fake));
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
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'ci' }),
      });
      token = ((await created.json()) as { secret: string }).secret;
    });

    afterAll(async () => {
      await server?.kill();
      await fake?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    /** The built CLI as a GitHub Actions step in `cwd`, with `variables` on top. */
    const covgate = (args: string[], variables: Record<string, string>, cwd = dataDir) =>
      run(process.execPath, [CLI, ...args], {
        cwd,
        env: {
          PATH: process.env.PATH,
          HOME: dataDir,
          NO_COLOR: '1',
          CI: 'true',
          GITHUB_ACTIONS: 'true',
          GITHUB_REPOSITORY: GITHUB_REPO,
          GITHUB_SERVER_URL: 'https://github.com',
          COVGATE_URL: server.url,
          COVGATE_TOKEN: token,
          ...variables,
        },
      });

    it('skips a docs-only pull request: covgate/project and covgate/patch go success with the reason and the base figure, no comment', async () => {
      const base = await fetch(`${server.url}/v1/executions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          repo: 'Hello-World',
          branch: 'master',
          coverage: 84.13,
          commit: BASE_COMMIT,
        }),
      });
      expect(base.status).toBe(201);

      const job = await covgate(['skip', '--reason', 'docs only', '--json'], {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: PR_EVENT,
        GITHUB_REF: 'refs/pull/2/merge',
        GITHUB_HEAD_REF: 'changes',
        GITHUB_BASE_REF: 'master',
        GITHUB_SHA: '9a2c5e1e8b0a4c0f6f3b1d7e2c4a6b8d0e1f2a3b',
      });
      expect([job.code, job.stderr]).toEqual([0, '']);
      const record = JSON.parse(job.stdout) as Record<string, unknown> & { id: string };
      expect(record).toMatchObject({
        repo: 'Hello-World',
        branch: 'changes',
        commit: PR_HEAD,
        outcome: 'skipped',
        coverage: null,
        pull_request: 2,
        skip_reason: 'docs only',
        baseline: { branch: 'master', coverage: 84.13, commit: BASE_COMMIT },
        exit_code: 0,
      });

      await expect.poll(() => statusesOf(fake, PR_HEAD).length, { timeout: 20_000 }).toBe(2);
      const runUrl = `https://covgate.example.com/dashboard/repos/Hello-World/runs/${record.id}`;
      expect(statusesOf(fake, PR_HEAD)).toEqual([
        {
          repo: GITHUB_REPO,
          sha: PR_HEAD,
          state: 'success',
          context: 'covgate/project',
          description: 'skipped: docs only (master at 84.13%)',
          target_url: runUrl,
        },
        {
          repo: GITHUB_REPO,
          sha: PR_HEAD,
          state: 'success',
          context: 'covgate/patch',
          description: 'patch: skipped: docs only',
          target_url: runUrl,
        },
      ]);
      expect(fake.commentsOf(GITHUB_REPO, 2)).toEqual([]);

      // The skip is listed, and the repository's headline still shows the measured run.
      const headline = await fetch(`${server.url}/v1/repos/headline?org=${slug}&repo=Hello-World`, {
        headers: { authorization: `Bearer ${session}` },
      });
      expect(await headline.json()).toMatchObject({
        base_branch: 'master',
        current: { outcome: 'pass', coverage: 84.13, commit: BASE_COMMIT },
      });
    });

    it('prints one line without --json, and refuses a skip without a reason before sending anything', async () => {
      const env = {
        GITHUB_EVENT_NAME: 'push',
        GITHUB_REF: 'refs/heads/master',
        GITHUB_SHA: 'c'.repeat(40),
      };
      const job = await covgate(
        ['skip', '--reason', 'only the changelog', '--base-branch', 'master'],
        env,
      );
      expect([job.code, job.stdout, job.stderr]).toEqual([
        0,
        `skipped Hello-World@master at ccccccc: only the changelog; master stays at 84.13%\n`,
        '',
      ]);
      const refused = await covgate(['skip'], env);
      expect([refused.code, refused.stderr]).toEqual([
        2,
        "covgate: error: required option '--reason <text>' not specified\n(run covgate --help for usage)\n",
      ]);
    });
    it("sets covgate/project and covgate/patch on a merge queue's commit, the patch measured against the queue's target", async () => {
      const gitEnv = {
        PATH: process.env.PATH,
        HOME: dataDir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@t.invalid',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@t.invalid',
      };
      const checkout = await mkdtemp(join(dataDir, 'queue-'));
      const git = async (...args: string[]) => {
        const result = await run('git', args, { cwd: checkout, env: gitEnv });
        expect(result.code, result.stderr).toBe(0);
      };
      // main holds two lines; the queued pull request adds two, of which the tests run one.
      await mkdir(join(checkout, 'src'));
      await writeFile(join(checkout, 'src', 'a.js'), 'one();\ntwo();\n');
      await git('init', '-q', '-b', 'main');
      await git('add', '-A');
      await git('commit', '-q', '-m', 'base');
      await git('checkout', '-q', '-b', QUEUE_BRANCH);
      await writeFile(join(checkout, 'src', 'a.js'), 'one();\ntwo();\nthree();\nfour();\n');
      await git('commit', '-q', '-am', 'queued pull request');
      await writeFile(
        join(checkout, 'lcov.info'),
        'SF:src/a.js\nDA:1,1\nDA:2,1\nDA:3,1\nDA:4,0\nend_of_record\n',
      );

      const job = await covgate(
        ['report', '--report', 'lcov.info', '--json'],
        {
          GITHUB_REPOSITORY: QUEUE_REPO,
          GITHUB_EVENT_NAME: 'merge_group',
          GITHUB_EVENT_PATH: QUEUE_EVENT,
          GITHUB_REF: `refs/heads/${QUEUE_BRANCH}`,
          GITHUB_REF_NAME: QUEUE_BRANCH,
          GITHUB_REF_TYPE: 'branch',
          GITHUB_SHA: QUEUE_COMMIT,
        },
        checkout,
      );
      expect(job.code, job.stderr).toBe(1);
      const verdict = JSON.parse(job.stdout) as { execution_id: string };
      expect(verdict).toMatchObject({
        repo: 'octo-repo',
        branch: QUEUE_BRANCH,
        commit: QUEUE_COMMIT,
        outcome: 'fail',
        decided_by: 'patch rule',
        patch: { covered: 1, coverable: 2 },
      });
      const record = { id: verdict.execution_id };

      await expect.poll(() => statusesOf(fake, QUEUE_COMMIT).length, { timeout: 20_000 }).toBe(2);
      const runUrl = `https://covgate.example.com/dashboard/repos/octo-repo/runs/${record.id}`;
      expect(statusesOf(fake, QUEUE_COMMIT)).toEqual([
        {
          repo: QUEUE_REPO,
          sha: QUEUE_COMMIT,
          state: 'failure',
          context: 'covgate/project',
          description: '75.00% (no baseline) fail by the patch rule',
          target_url: runUrl,
        },
        {
          repo: QUEUE_REPO,
          sha: QUEUE_COMMIT,
          state: 'failure',
          context: 'covgate/patch',
          description: 'patch 50.00% < 80% fail',
          target_url: runUrl,
        },
      ]);
    });

    it("covgate doctor names GitHub's refusal the outbox recorded: 401 for a revoked token, 404 for a repository it cannot see", async () => {
      const checkout = await mkdtemp(join(dataDir, 'doctor-'));
      const cases = [
        {
          repo: 'Revoked',
          status: 401,
          reason: 'GitHub refused the credential (401): Bad credentials',
          fix: "the link's token is revoked or expired: an owner or admin links the repository again with a new token (docs/guide/pull-request-feedback.md)",
        },
        {
          repo: 'Hidden',
          status: 404,
          reason:
            'GitHub repository, commit or pull request not found, or not visible to the credential (404): Not Found',
          fix: "the code host does not find the linked repository with that token: check the link's repository name and that the token can see it (docs/guide/pull-request-feedback.md)",
        },
      ];
      for (const [index, { repo, status, reason, fix }] of cases.entries()) {
        const commit = String(index + 1).repeat(40);
        const posted = await fetch(`${server.url}/v1/executions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
          body: JSON.stringify({ repo, branch: 'main', coverage: 80, commit }),
        });
        expect(posted.status).toBe(201);
        const { id } = (await posted.json()) as { id: string };
        type Detail = {
          feedback: {
            items: {
              name: string;
              deliveries?: {
                state: string;
                last_status: number | null;
                last_error: string | null;
              }[];
            }[];
          };
        };
        const projectDelivery = async () => {
          const detail = (await (
            await fetch(`${server.url}/v1/executions/${id}`, {
              headers: { authorization: `Bearer ${session}` },
            })
          ).json()) as Detail;
          return detail.feedback.items.find((item) => item.name === 'covgate/project')
            ?.deliveries?.[0];
        };
        // Refused at once: no retry waits on a 401 or a 404.
        await expect
          .poll(async () => (await projectDelivery())?.state, { timeout: 20_000 })
          .toBe('failed');
        const delivery = await projectDelivery();
        expect([delivery?.last_status, delivery?.last_error]).toEqual([status, reason]);

        const doctor = await covgate(
          ['doctor', '--repo', repo, '--base-branch', 'main'],
          {
            GITHUB_REPOSITORY: `Codertocat/${repo}`,
            GITHUB_EVENT_NAME: 'push',
            GITHUB_REF: 'refs/heads/main',
            GITHUB_SHA: commit,
          },
          checkout,
        );
        expect(doctor.code).toBe(1);
        expect(
          doctor.stdout.split('\n').filter((line) => line.includes('repository link')),
        ).toEqual([
          `fail repository link: ${repo} is linked to github:Codertocat/${repo}, and the code host refused covgate/project of the latest run ${id} with ${status}: ${reason} Fix: ${fix}`,
        ]);
        expect(fake.statuses.filter((s) => s.sha === commit)).toEqual([]);
      }
    });
  },
);
