import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ActionJob,
  type ActionJobs,
  action,
  actionJobsBuilt,
  git,
  JOB_TOKEN,
  startActionJobs,
} from '../support/action-jobs.js';
import { listen } from '../support/http-server.js';
import {
  eventsOf,
  type Workflow,
  type WorkflowStep,
  workflowsOf,
} from '../support/workflow-job.js';

// The GitHub Action (action.yml at the repository root) run as the Actions runner would run
// its composite step (test/support/action-jobs.ts), against the built reference server.

const repo = fileURLToPath(new URL('../../', import.meta.url));
const built = actionJobsBuilt;
if (!built) console.warn('[covgate] action tests SKIPPED: run `pnpm build` first');
const cliVersion = (
  JSON.parse(readFileSync(join(repo, 'packages/cli/package.json'), 'utf8')) as { version: string }
).version;

/** The workflow pair of docs/fork-pull-requests.md: the `pull_request` one and the `workflow_run` one. */
function forkWorkflows(): {
  test: Workflow;
  post: Workflow & { on: { workflow_run: { workflows: string[] } } };
} {
  const workflows = workflowsOf(readFileSync(join(repo, 'docs/fork-pull-requests.md'), 'utf8'));
  const test = workflows.find((w) => w.on === 'pull_request');
  const post = workflows.find((w) => eventsOf(w).includes('workflow_run'));
  if (!test || !post) throw new Error('docs/fork-pull-requests.md lacks its workflow pair');
  return { test, post: post as Workflow & { on: { workflow_run: { workflows: string[] } } } };
}

/** The one step of a workflow that uses `action` (a prefix such as `actions/checkout@`). */
function stepUsing(workflow: Workflow, action: string): WorkflowStep {
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const found = steps.filter((step) => step.uses?.startsWith(action));
  if (found.length !== 1) throw new Error(`${workflow.name}: ${found.length} steps use ${action}`);
  return found[0] as WorkflowStep;
}

describe('action.yml', () => {
  it('is a composite action of one bash step whose script reads its inputs only from the environment', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.runs.steps).toHaveLength(1);
    const step = action.runs.steps[0] as (typeof action.runs.steps)[number];
    expect(step.shell).toBe('bash');
    expect(step.run).not.toContain('${{');
    expect(Object.keys(action.inputs).sort()).toEqual([
      'args',
      'base-branch',
      'bundle-post',
      'bundle-write',
      'cli',
      'component',
      'doctor',
      'fail-on-warn',
      'fail-threshold',
      'github-token',
      'oidc-audience',
      'org',
      'patch-target',
      'reports',
      'skip-reason',
      'token',
      'url',
      'version',
      'warn-threshold',
      'working-directory',
    ]);
    expect(action.inputs.url?.required).toBe(true);
    expect(action.inputs.token?.required).toBe(false);
  });
});

describe.skipIf(!built && process.env.CI !== '1')(
  'the action in a simulated GitHub Actions job',
  { timeout: 120_000 },
  () => {
    let jobs: ActionJobs;
    let workDir: string;
    let server: ActionJobs['server'];
    let token: string;
    let session: string;
    let tokenServiceOrigin: string;
    let runStep: ActionJobs['runStep'];

    beforeAll(async () => {
      jobs = await startActionJobs('action');
      ({ workDir, server, token, session, tokenServiceOrigin, runStep } = jobs);
    }, 180_000);

    afterAll(async () => {
      await jobs.close();
    });

    const lcov = (hits: number[]) =>
      `SF:src/a.js\n${hits.map((count, index) => `DA:${index + 1},${count}`).join('\n')}\nend_of_record\n`;

    /** A workspace: a git repository with `src/a.js` committed on main, its head commit. */
    const workspace = async (): Promise<{ dir: string; head: string }> => {
      const dir = await mkdtemp(join(workDir, 'workspace-'));
      await mkdir(join(dir, 'web', 'src'), { recursive: true });
      await writeFile(join(dir, 'web', 'src', 'a.js'), 'a();\nb();\nc();\nd();\n');
      await git(dir, 'init', '-q', '-b', 'main');
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', 'base');
      return { dir, head: await git(dir, 'rev-parse', 'HEAD') };
    };

    const expectNoToken = (job: ActionJob) => {
      for (const text of [job.stdout, job.stderr, job.summary, job.output, ...job.npxArgs])
        expect(text).not.toContain(token);
    };

    it("passes a push to main with the server's CLI, writes the step summary and never shows the token", async () => {
      const { dir, head } = await workspace();
      await writeFile(join(dir, 'web', 'lcov.info'), lcov([1, 1, 1, 0]));
      const job = await runStep(
        dir,
        { url: server.url, token, reports: 'lcov.info', 'working-directory': 'web' },
        {
          GITHUB_EVENT_NAME: 'push',
          GITHUB_REF: 'refs/heads/main',
          GITHUB_REF_NAME: 'main',
          GITHUB_SHA: head,
        },
      );
      expect(job.code, job.stderr).toBe(0);
      expect(job.npxArgs).toEqual([
        '--yes',
        `${server.url}/cli/covgate.tgz`,
        'report',
        '--report',
        'lcov.info',
      ]);
      expect(job.stdout).toBe(
        'web@main: coverage 75.00%, no baseline on main yet: nothing to compare, recorded as the first run\n',
      );
      expect(job.stderr).toContain(
        `covgate: npx ${server.url}/cli/covgate.tgz report --report lcov.info\n`,
      );
      expect(job.summary).toContain('### ℹ️ covgate: no baseline');
      expect(job.summary).toContain(`\`web\` on \`main\` at \`${head.slice(0, 12)}\`\n`);
      expect(job.summary).toContain('| 75.00% | none on `main` | 3 / 4 |\n');
      expectNoToken(job);

      const runs = await fetch(`${server.url}/v1/executions?org=action&repo=web`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await runs.json()) as { executions: { commit: string; branch: string }[] };
      expect(body.executions.map((run) => [run.branch, run.commit])).toEqual([['main', head]]);
    });

    it('fails the step (exit 1) on a pull request whose coverage drops past the fail threshold, posted with its head commit', async () => {
      const { dir } = await workspace();
      await writeFile(join(dir, 'web', 'lcov.info'), lcov([1, 1, 1, 1]));
      const onMain = await runStep(
        dir,
        { url: server.url, token, reports: 'web/lcov.info', component: 'pr-case' },
        { GITHUB_EVENT_NAME: 'push', GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'a'.repeat(40) },
      );
      expect(onMain.code, onMain.stderr).toBe(0);

      const headSha = 'b'.repeat(40);
      const event = join(workDir, 'pull_request.json');
      await writeFile(
        event,
        JSON.stringify({
          number: 7,
          pull_request: {
            number: 7,
            head: { ref: 'feature', sha: headSha },
            base: { ref: 'main' },
          },
        }),
      );
      await writeFile(join(dir, 'web', 'lcov.info'), lcov([1, 1, 0, 0]));
      const job = await runStep(
        dir,
        {
          url: server.url,
          token,
          reports: 'web/lcov.info',
          component: 'pr-case',
          'fail-threshold': '5',
          'warn-threshold': '2',
        },
        {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: event,
          GITHUB_REF: 'refs/pull/7/merge',
          GITHUB_HEAD_REF: 'feature',
          GITHUB_BASE_REF: 'main',
          GITHUB_SHA: 'c'.repeat(40),
        },
      );
      expect(job.code, job.stderr).toBe(1);
      expect(job.npxArgs.slice(2)).toEqual([
        'report',
        '--report',
        'web/lcov.info',
        '--fail-threshold',
        '5',
        '--warn-threshold',
        '2',
        '--component',
        'pr-case',
      ]);
      expect(job.stdout).toBe(
        'fail web@feature: coverage 50.00%, baseline 100.00% on main, delta -50.00, patch: no coverable line changed\n',
      );
      expect(job.summary).toContain('### ❌ covgate: fail');
      expect(job.summary).toContain(`\`web\` on \`feature\` at \`${headSha.slice(0, 12)}\`\n`);
      expect(job.summary).toContain('| 50.00% | 100.00% (`main`) | -50.00 | fail | 2 / 4 |\n');
      expectNoToken(job);
    });

    it('runs unchanged in a Gitea Actions pull request job: its head commit, number and instance URL', async () => {
      const { dir } = await workspace();
      await writeFile(join(dir, 'web', 'lcov.info'), lcov([1, 1, 1, 0]));
      // A Gitea instance's `pull_request` payload (packages/cli/test/fixtures/README.md).
      const event = join(repo, 'packages/cli/test/fixtures/gitea/pull_request.synchronized.json');
      const head = '788ed8d02d3b7fcfcf6386dbcbca696aa1d4dc25';
      const job = await runStep(
        dir,
        {
          url: server.url,
          token,
          reports: 'web/lcov.info',
        },
        {
          GITEA_ACTIONS: 'true',
          GITHUB_SERVER_URL: 'https://gitea.example.com/',
          GITHUB_API_URL: 'https://gitea.example.com/api/v1',
          GITHUB_REPOSITORY: 'Test-CI/multi-line-secrets',
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: event,
          GITHUB_REF: 'refs/pull/2/head',
          GITHUB_HEAD_REF: 'test-patch-1',
          GITHUB_BASE_REF: 'main',
          GITHUB_SHA: head,
        },
      );
      expect(job.code, job.stderr).toBe(0);
      expect(job.stdout).toBe(
        'multi-line-secrets@test-patch-1: coverage 75.00%, no baseline on main yet: nothing to compare, recorded as the first run, patch: no coverable line changed\n',
      );
      expectNoToken(job);
      const runs = await fetch(`${server.url}/v1/executions?org=action&repo=multi-line-secrets`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const [posted] = (
        (await runs.json()) as {
          executions: {
            branch: string;
            commit: string;
            feedback?: { pull_request: number | null };
          }[];
        }
      ).executions;
      expect(posted).toMatchObject({
        branch: 'test-patch-1',
        commit: head,
        feedback: { pull_request: 2 },
      });
      const settings = await fetch(
        `${server.url}/v1/repos/settings?org=action&repo=multi-line-secrets`,
        { headers: { authorization: `Bearer ${session}` } },
      );
      expect(((await settings.json()) as { web_url: string | null }).web_url).toBe(
        'https://gitea.example.com/Test-CI/multi-line-secrets',
      );
    });

    it('records a docs-only pull request as skipped with the skip-reason input, reading no report', async () => {
      const { dir } = await workspace();
      // GitHub's example `pull_request` event (packages/cli/test/fixtures/README.md).
      const event = join(repo, 'packages/cli/test/fixtures/github/pull_request.opened.json');
      const job = await runStep(
        dir,
        {
          url: server.url,
          token,
          reports: 'web/lcov.info',
          'skip-reason': 'docs only; $(touch pwned)',
          component: 'skip-case',
        },
        {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: event,
          GITHUB_REF: 'refs/pull/2/merge',
          GITHUB_HEAD_REF: 'changes',
          GITHUB_BASE_REF: 'master',
          GITHUB_SHA: 'c'.repeat(40),
        },
      );
      expect(job.code, job.stderr).toBe(0);
      expect(job.npxArgs.slice(2)).toEqual([
        'skip',
        '--reason',
        'docs only; $(touch pwned)',
        '--component',
        'skip-case',
      ]);
      expect(job.stdout).toBe(
        'skipped web@changes at ec26c3e: docs only; $(touch pwned); the base branch has no run yet\n',
      );
      expect(existsSync(join(dir, 'pwned'))).toBe(false);
      expectNoToken(job);
      const runs = await fetch(
        `${server.url}/v1/executions?org=action&repo=web&component=skip-case`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      expect(((await runs.json()) as { executions: unknown[] }).executions).toMatchObject([
        {
          outcome: 'skipped',
          coverage: null,
          commit: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
          pull_request: 2,
          skip_reason: 'docs only; $(touch pwned)',
        },
      ]);
    });

    it('runs covgate doctor with the doctor input, posting nothing, and fails the step on a failed check', async () => {
      const { dir, head } = await workspace();
      await writeFile(join(dir, 'web', 'lcov.info'), lcov([1, 1, 0, 0]));
      const job = await runStep(
        dir,
        {
          url: server.url,
          token,
          reports: 'lcov.info',
          'working-directory': 'web',
          'fail-threshold': '2',
          'base-branch': 'release',
          doctor: 'true',
        },
        {
          GITHUB_EVENT_NAME: 'push',
          GITHUB_REF: 'refs/heads/doctor-case',
          GITHUB_REF_NAME: 'doctor-case',
          GITHUB_SHA: head,
        },
      );
      expect(job.npxArgs.slice(2)).toEqual([
        'doctor',
        '--report',
        'lcov.info',
        '--base-branch',
        'release',
      ]);
      const lines = job.stdout.split('\n');
      expect(lines.slice(0, 6).map((line) => line.split(':')[0])).toEqual([
        'pass url',
        'pass credential',
        'pass target',
        'fail fetch depth',
        'fail base branch',
        'pass reports',
      ]);
      // Not linked (warn) once another test posted a run of web; else no run to tell (skip).
      expect(lines[6]).toMatch(/^(warn|skip) repository link: /);
      expect(lines[4]).toBe(
        'fail base branch: web on release has no run yet, so a change is compared with nothing (no baseline) Fix: post a run from the base branch first: run covgate on pushes to it (on: push: branches: [release])',
      );
      expect(job.code).toBe(1);
      expectNoToken(job);
      const runs = await fetch(
        `${server.url}/v1/executions?org=action&repo=web&branch=doctor-case`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      expect(((await runs.json()) as { total: number }).total).toBe(0);
    });

    it("fails an under-tested pull request on actions/checkout's default shallow checkout", async () => {
      // origin: main, then a pull request's branch adding four lines, one of them tested.
      const { dir } = await workspace();
      await git(dir, 'checkout', '-q', '-b', 'feature');
      await writeFile(
        join(dir, 'web', 'src', 'a.js'),
        'a();\nb();\nc();\nd();\ne();\nf();\ng();\nh();\n',
      );
      await git(dir, 'commit', '-q', '-am', 'four lines');
      const headSha = await git(dir, 'rev-parse', 'HEAD');
      const origin = `${dir}.git`;
      await git(workDir, 'clone', '-q', '--bare', dir, origin);
      // The job's workspace as actions/checkout leaves it by default: one commit.
      const checkout = `${dir}-checkout`;
      await git(
        workDir,
        'clone',
        '-q',
        '--depth',
        '1',
        '--branch',
        'feature',
        `file://${origin}`,
        checkout,
      );
      await writeFile(join(checkout, 'web', 'lcov.info'), lcov([1, 1, 1, 1, 1, 0, 0, 0]));
      const event = join(workDir, 'shallow-pull_request.json');
      await writeFile(
        event,
        JSON.stringify({
          number: 8,
          pull_request: {
            number: 8,
            head: { ref: 'feature', sha: headSha },
            base: { ref: 'main' },
          },
        }),
      );
      const job = await runStep(
        checkout,
        {
          url: server.url,
          token,
          reports: 'web/lcov.info',
          component: 'shallow-case',
          'patch-target': '80',
        },
        {
          GITHUB_EVENT_NAME: 'pull_request',
          GITHUB_EVENT_PATH: event,
          GITHUB_REF: 'refs/pull/8/merge',
          GITHUB_HEAD_REF: 'feature',
          GITHUB_BASE_REF: 'main',
          GITHUB_SHA: 'e'.repeat(40),
        },
      );
      expect(job.code, job.stderr).toBe(1);
      expect(job.stderr).toContain(
        `covgate: fetching the history the patch needs: git fetch --no-tags --depth=50 origin +refs/heads/main:refs/remotes/origin/main ${headSha}\n`,
      );
      expect(job.stdout).toBe(
        'fail web@feature: coverage 62.50%, no baseline on main yet: nothing to compare, recorded as the first run, patch 25.00% (1 of 4 lines, target 80.00%); failed by the patch rule (patch coverage below its target)\n',
      );
      expectNoToken(job);
    });

    it('expands globs of the reports input, keeps a path with spaces whole, and passes the extra args', async () => {
      const { dir } = await workspace();
      await mkdir(join(dir, 'packages', 'one'), { recursive: true });
      await mkdir(join(dir, 'packages', 'two words'), { recursive: true });
      await writeFile(join(dir, 'packages', 'one', 'lcov.info'), lcov([1, 1]));
      await writeFile(join(dir, 'packages', 'two words', 'lcov.info'), lcov([1]));
      const job = await runStep(
        dir,
        {
          url: server.url,
          token,
          reports: '  packages/**/lcov.info\n\n',
          args: '--dry-run  --branch main',
        },
        { GITHUB_EVENT_NAME: 'push', GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'd'.repeat(40) },
      );
      expect(job.code, job.stderr).toBe(0);
      expect(job.npxArgs.slice(2)).toEqual([
        'report',
        '--report',
        'packages/one/lcov.info',
        '--report',
        'packages/two words/lcov.info',
        '--dry-run',
        '--branch',
        'main',
      ]);
      expectNoToken(job);
    });

    it('runs the registry version asked for, and takes shell syntax in an input as data', async () => {
      const { dir } = await workspace();
      await writeFile(join(dir, 'lcov.info'), lcov([1]));
      const job = await runStep(
        dir,
        {
          url: server.url,
          token,
          cli: 'registry',
          version: '0.0.9',
          reports: 'lcov.info',
          component: '$(touch pwned)',
        },
        { GITHUB_EVENT_NAME: 'push', GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'e'.repeat(40) },
      );
      expect(job.npxArgs.slice(0, 2)).toEqual(['--yes', '@covgate/cli@0.0.9']);
      expect(job.npxArgs.slice(-2)).toEqual(['--component', '$(touch pwned)']);
      expect(job.code).toBe(2);
      expect(job.stderr).toContain(
        "option '--component <name>' argument '$(touch pwned)' is invalid",
      );
      expect(existsSync(join(dir, 'pwned'))).toBe(false);
      expectNoToken(job);
    });

    it('posts without a token from a job with id-token: write, as the repository the ID token names', async () => {
      const { dir, head } = await workspace();
      const trust = await fetch(`${server.url}/v1/repos/settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          org: 'action',
          repo: 'web',
          ci_trust: [{ provider: 'github', repository: 'octo/web', ref: 'refs/heads/main' }],
        }),
      });
      expect(trust.status).toBe(200);
      await writeFile(join(dir, 'web', 'lcov.info'), lcov([1, 1, 1, 1]));
      const job = await runStep(
        dir,
        {
          url: server.url,
          token: '',
          org: 'action',
          'oidc-audience': 'covgate-action-test',
          reports: 'lcov.info',
          'working-directory': 'web',
        },
        {
          GITHUB_EVENT_NAME: 'push',
          GITHUB_REF: 'refs/heads/main',
          GITHUB_REF_NAME: 'main',
          GITHUB_SHA: head,
          ACTIONS_ID_TOKEN_REQUEST_URL: `${tokenServiceOrigin}/idtoken?api-version=2.0`,
          ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
        },
      );
      expect(job.code, job.stderr).toBe(0);
      expect(job.npxArgs).toEqual([
        '--yes',
        `${server.url}/cli/covgate.tgz`,
        'report',
        '--org',
        'action',
        '--oidc',
        '--oidc-audience',
        'covgate-action-test',
        '--report',
        'lcov.info',
      ]);
      const runs = await fetch(`${server.url}/v1/executions?org=action&repo=web&limit=1`, {
        headers: { authorization: `Bearer ${session}` },
      });
      const [latest] = ((await runs.json()) as { executions: { posted_by?: string }[] }).executions;
      expect(latest?.posted_by).toBe('oidc:github:octo/web@refs/heads/main');
      expect(job.stdout + job.stderr).not.toContain('eyJ');
    });

    it("refuses an empty token, a version that is not a version number, a version with the server's CLI or an unknown CLI source before running anything", async () => {
      const { dir } = await workspace();
      const noToken = await runStep(
        dir,
        { url: server.url, token: '' },
        { GITHUB_EVENT_NAME: 'pull_request', GITHUB_SHA: 'f'.repeat(40) },
      );
      expect(noToken.code).toBe(2);
      expect(noToken.stdout).toBe(
        '::error title=covgate::the token input is empty and the job cannot ask for an OIDC ID token: pass an API token with the execute scope from a repository secret, or give the job `permissions: id-token: write` and the org input (keyless CI); a pull request from a fork gets neither: write a bundle there (bundle-write) and post it from a workflow_run job (bundle-post)\n',
      );
      expect(noToken.npxArgs).toEqual([]);

      const keylessWithoutOrg = await runStep(
        dir,
        { url: server.url, token: '' },
        {
          GITHUB_EVENT_NAME: 'push',
          GITHUB_SHA: 'f'.repeat(40),
          ACTIONS_ID_TOKEN_REQUEST_URL: `${tokenServiceOrigin}/idtoken?api-version=2.0`,
          ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
        },
      );
      expect(keylessWithoutOrg.code).toBe(2);
      expect(keylessWithoutOrg.stdout).toBe(
        '::error title=covgate::keyless CI (no token input) needs the org input: the covgate organisation whose repository settings trust this repository\n',
      );
      expect(keylessWithoutOrg.npxArgs).toEqual([]);

      const badVersion = await runStep(
        dir,
        { url: server.url, token, cli: 'registry', version: 'latest; rm -rf /' },
        { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: 'f'.repeat(40) },
      );
      expect(badVersion.code).toBe(2);
      expect(badVersion.stdout).toBe(
        "::error title=covgate::version 'latest; rm -rf /' is not a version number such as 1.2.3\n",
      );
      expect(badVersion.npxArgs).toEqual([]);
      expectNoToken(badVersion);

      const versionFromServer = await runStep(
        dir,
        { url: server.url, token, version: '0.0.9' },
        { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: 'f'.repeat(40) },
      );
      expect(versionFromServer.code).toBe(2);
      expect(versionFromServer.stdout).toBe(
        '::error title=covgate::the version input needs cli: registry (the server serves the CLI of its own release)\n',
      );
      expect(versionFromServer.npxArgs).toEqual([]);

      const unknownSource = await runStep(
        dir,
        { url: server.url, token, cli: 'github' },
        { GITHUB_EVENT_NAME: 'push', GITHUB_SHA: 'f'.repeat(40) },
      );
      expect(unknownSource.code).toBe(2);
      expect(unknownSource.stdout).toBe(
        "::error title=covgate::cli 'github' is neither server nor registry\n",
      );
      expect(unknownSource.npxArgs).toEqual([]);
    });

    it("posts a fork's pull request with the workflow pair of docs/fork-pull-requests.md", async () => {
      const pair = forkWorkflows();
      expect(pair.post.on.workflow_run.workflows).toEqual([pair.test.name]);
      const upload = stepUsing(pair.test, 'actions/upload-artifact@');
      const download = stepUsing(pair.post, 'actions/download-artifact@');
      const writer = stepUsing(pair.test, 'covgate/covgate@');
      const poster = stepUsing(pair.post, 'covgate/covgate@');
      expect(download.with?.name).toBe(upload.with?.name);
      expect(upload.with?.path).toBe(writer.with?.['bundle-write']);
      expect(poster.with?.['bundle-post']).toBe(writer.with?.['bundle-write']);

      // lcov of the workspace's web/src/a.js, written at the root as the docs' workflow has it.
      const webLcov = (hits: number[]) => lcov(hits).replace('SF:src/a.js', 'SF:web/src/a.js');
      // The fork's pull_request job: GitHub's pull_request event at the fork's head, no token.
      const { dir } = await workspace();
      await mkdir(join(dir, 'coverage'));
      await writeFile(join(dir, 'coverage', 'lcov.info'), webLcov([1, 1, 1, 1]));
      const onMain = await runStep(
        dir,
        { url: server.url, token, reports: 'coverage/lcov.info' },
        {
          GITHUB_EVENT_NAME: 'push',
          GITHUB_REF: 'refs/heads/main',
          GITHUB_REPOSITORY: 'octo-org/octo-repo',
          GITHUB_SHA: await git(dir, 'rev-parse', 'HEAD'),
        },
      );
      expect(onMain.code, onMain.stderr).toBe(0);
      await git(dir, 'checkout', '-q', '-b', 'changes');
      await writeFile(join(dir, 'web', 'src', 'a.js'), 'a();\nb();\nc();\nd();\ne();\n');
      await git(dir, 'commit', '-q', '-am', 'one more line');
      const head = await git(dir, 'rev-parse', 'HEAD');
      await writeFile(join(dir, 'coverage', 'lcov.info'), webLcov([1, 1, 1, 1, 0]));
      const pullEvent = JSON.parse(
        readFileSync(
          join(repo, 'packages/cli/test/fixtures/github/pull_request.opened.json'),
          'utf8',
        ),
      );
      pullEvent.pull_request.head.sha = head;
      pullEvent.pull_request.head.ref = 'changes';
      pullEvent.pull_request.base.ref = 'main';
      await writeFile(join(workDir, 'fork-pull-request.json'), JSON.stringify(pullEvent));
      const written = await runStep(dir, stepInputs(writer.with ?? {}), {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: join(workDir, 'fork-pull-request.json'),
        GITHUB_REPOSITORY: 'octo-org/octo-repo',
        GITHUB_REF: 'refs/pull/2/merge',
        GITHUB_HEAD_REF: 'changes',
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: 'c'.repeat(40),
      });
      expect(written.code, written.stderr).toBe(0);
      expect(written.npxArgs).toEqual([
        '--yes',
        'https://covgate.example.com/cli/covgate.tgz',
        'run',
        '--bundle',
        'covgate-bundle.json',
        '--report',
        'coverage/lcov.info',
        '--',
        'true',
      ]);

      // The workflow_run job: the base repository's checkout, the artifact downloaded into it.
      const trusted = await mkdtemp(join(workDir, 'workflow-run-'));
      await writeFile(
        join(trusted, 'covgate-bundle.json'),
        await readFile(join(dir, 'covgate-bundle.json')),
      );
      const runEvent = JSON.parse(
        readFileSync(
          join(repo, 'packages/cli/test/fixtures/github/workflow_run.completed.payload.json'),
          'utf8',
        ),
      );
      runEvent.workflow_run.event = 'pull_request';
      runEvent.workflow_run.head_sha = head;
      runEvent.workflow_run.head_branch = 'changes';
      runEvent.workflow_run.head_repository.full_name = 'forker/octo-repo';
      expect(runEvent.workflow_run.pull_requests).toEqual([]);
      await writeFile(join(workDir, 'workflow-run.json'), JSON.stringify(runEvent));
      const asked: string[] = [];
      const api = await listen((request, response) => {
        asked.push(`${request.url} ${request.headers.authorization}`);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            ...pullEvent.pull_request,
            head: { ...pullEvent.pull_request.head, repo: { full_name: 'forker/octo-repo' } },
            base: { ...pullEvent.pull_request.base, repo: { full_name: 'octo-org/octo-repo' } },
          }),
        );
      });
      try {
        const posted = await runStep(trusted, stepInputs(poster.with ?? {}), {
          GITHUB_EVENT_NAME: 'workflow_run',
          GITHUB_EVENT_PATH: join(workDir, 'workflow-run.json'),
          GITHUB_REPOSITORY: 'octo-org/octo-repo',
          GITHUB_REF: 'refs/heads/main',
          GITHUB_SHA: 'd'.repeat(40),
          GITHUB_API_URL: api.origin,
        });
        // The total drops 20 points (the default fail threshold is 1); the patch, line 5
        // changed and not covered, is 0 % against the workflow's patch-target 80.
        expect(posted.code, posted.stderr).toBe(1);
        expect(posted.stdout).toBe(
          'fail octo-repo@forker:changes: coverage 80.00%, baseline 100.00% on main, delta -20.00, patch 0.00% (0 of 1 lines, target 80.00%)\n',
        );
        expect(asked).toEqual([`/repos/octo-org/octo-repo/pulls/2 Bearer ${JOB_TOKEN}`]);
        for (const text of [posted.stdout, posted.stderr, posted.summary, ...posted.npxArgs]) {
          expect(text).not.toContain(token);
          expect(text).not.toContain(JOB_TOKEN);
        }
      } finally {
        await api.close();
      }
      const runs = await fetch(`${server.url}/v1/executions?org=action&repo=octo-repo`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await runs.json()) as {
        executions: { branch: string; commit: string; pull_request?: number }[];
      };
      expect(body.executions.map((r) => [r.branch, r.commit, r.pull_request])).toEqual([
        ['forker:changes', head, 2],
        ['main', expect.any(String), undefined],
      ]);
    });

    /** A workflow step's `with:` as the runner evaluates it, for the test's server and token. */
    const stepInputs = (given: Record<string, string | number | boolean>) =>
      Object.fromEntries(
        Object.entries(given).map(([name, value]) => [
          name,
          String(value).replace(/\$\{\{\s*([a-z.A-Z_]+)\s*\}\}/g, (_, expression: string) => {
            const contexts: Record<string, string> = {
              'vars.COVGATE_URL': server.url,
              'secrets.COVGATE_TOKEN': token,
              'github.token': JOB_TOKEN,
            };
            const value = contexts[expression];
            if (value === undefined) throw new Error(`unknown expression ${expression}`);
            return value;
          }),
        ]),
      );

    it('runs the pinned registry CLI with cli: registry', async () => {
      const { dir } = await workspace();
      await writeFile(join(dir, 'lcov.info'), lcov([1]));
      const job = await runStep(
        dir,
        { url: server.url, token, cli: 'registry', reports: 'lcov.info' },
        { GITHUB_EVENT_NAME: 'push', GITHUB_REF: 'refs/heads/main', GITHUB_SHA: 'd'.repeat(40) },
      );
      expect(job.npxArgs.slice(0, 2)).toEqual(['--yes', `@covgate/cli@${cliVersion}`]);
      expect(job.code, job.stderr).toBe(0);
    });
  },
);
