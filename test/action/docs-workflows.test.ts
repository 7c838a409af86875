import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ActionJobs,
  actionJobsBuilt,
  git,
  JOB_TOKEN,
  startActionJobs,
} from '../support/action-jobs.js';
import { eventsOf, runWorkflowJob, type Workflow, workflowsOf } from '../support/workflow-job.js';

// The complete GitHub Actions workflows the docs give for the covgate action, run as written:
// each step's `if:` and `${{ }}` evaluated by GitHub's expression library, `run:` steps by
// bash (npm, c8 and node --test for real), actions/checkout as a real clone at the depth the
// step asks for, the covgate action as the runner runs it, against the built server. What is
// stood in for: the server's address (`https://covgate.example.com` and `vars.COVGATE_URL`
// are the test's server) and GitHub itself (the event payloads are GitHub's examples).

const repo = fileURLToPath(new URL('../../', import.meta.url));
if (!actionJobsBuilt) console.warn('[covgate] docs workflow tests SKIPPED: run `pnpm build` first');

/** The page's workflows (blocks with `jobs:`) that use the covgate action. */
function covgateWorkflows(page: string): Workflow[] {
  return workflowsOf(readFileSync(join(repo, 'docs', page), 'utf8')).filter((workflow) =>
    Object.values(workflow.jobs).some((job) =>
      job.steps.some((step) => step.uses?.startsWith('covgate/covgate@')),
    ),
  );
}

/** The one job of a workflow. */
function onlyJob(workflow: Workflow) {
  const jobs = Object.values(workflow.jobs);
  expect(jobs).toHaveLength(1);
  return jobs[0] as Workflow['jobs'][string];
}

const SIGN = `export function sign(n) {
  if (n > 0) return 1;
  if (n < 0) return -1;
  return 0;
}
`;
const CLAMP = `export function clamp(n, low, high) {
  if (n < low) return low;
  if (n > high) return high;
  return n;
}
`;
const TEST = `import assert from 'node:assert';
import { test } from 'node:test';
import { sign } from '../src/sign.js';
test('sign', () => {
  assert.equal(sign(2), 1);
  assert.equal(sign(-2), -1);
  assert.equal(sign(0), 0);
});
`;

/** Line totals of an lcov file as the tool wrote them (LH and LF summed). */
function lcovTotals(text: string): { covered: number; coverable: number; percent: string } {
  const sum = (tag: string) =>
    [...text.matchAll(new RegExp(`^${tag}:(\\d+)$`, 'gm'))].reduce(
      (total, match) => total + Number(match[1]),
      0,
    );
  const covered = sum('LH');
  const coverable = sum('LF');
  const percent = (Math.trunc((covered * 10_000) / coverable) / 100).toFixed(2);
  return { covered, coverable, percent };
}

describe.skipIf(!actionJobsBuilt && process.env.CI !== '1')(
  "the docs' complete workflows, run as written",
  { timeout: 240_000 },
  () => {
    let jobs: ActionJobs;
    let origin: string;
    let eventCount = 0;

    beforeAll(async () => {
      jobs = await startActionJobs('acme', { ownAudience: true });
    }, 180_000);

    afterAll(async () => {
      await jobs.close();
    });

    /**
     * The repository on "GitHub": a bare repository whose main holds a node --test project
     * with src/sign.js fully tested, plus each branch `changes` adds; its main's head.
     */
    const newOrigin = async (): Promise<string> => {
      const source = await mkdtemp(join(jobs.workDir, 'source-'));
      await mkdir(join(source, 'src'));
      await mkdir(join(source, 'test'));
      await writeFile(
        join(source, 'package.json'),
        `${JSON.stringify({ name: 'web', version: '1.0.0', type: 'module', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
      );
      await writeFile(
        join(source, 'package-lock.json'),
        `${JSON.stringify({ name: 'web', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'web', version: '1.0.0' } } }, null, 2)}\n`,
      );
      await writeFile(join(source, 'README.md'), '# web\n');
      await writeFile(join(source, 'src', 'sign.js'), SIGN);
      await writeFile(join(source, 'test', 'sign.test.js'), TEST);
      await git(source, 'init', '-q', '-b', 'main');
      await git(source, 'add', '-A');
      await git(source, 'commit', '-q', '-m', 'sign, tested');
      origin = `${source}.git`;
      await git(jobs.workDir, 'clone', '-q', '--bare', source, origin);
      return source;
    };

    /** Pushes a pull request's branch (files changed on main) and GitHub's merge ref for it. */
    const openPullRequest = async (
      source: string,
      number: number,
      files: Record<string, string>,
    ): Promise<{ head: string; merge: string; base: string }> => {
      await git(source, 'checkout', '-q', '-B', `pr-${number}`, 'main');
      for (const [path, text] of Object.entries(files)) await writeFile(join(source, path), text);
      await git(source, 'add', '-A');
      await git(source, 'commit', '-q', '-m', `pull request ${number}`);
      const head = await git(source, 'rev-parse', 'HEAD');
      const base = await git(source, 'rev-parse', 'main');
      // GitHub's refs/pull/N/merge: the pull request merged into its base.
      await git(source, 'checkout', '-q', '--detach', 'main');
      await git(source, 'merge', '-q', '--no-ff', '-m', `Merge ${head} into ${base}`, head);
      const merge = await git(source, 'rev-parse', 'HEAD');
      await git(source, 'push', '-q', origin, `${head}:refs/heads/pr-${number}`);
      await git(source, 'push', '-q', origin, `${merge}:refs/pull/${number}/merge`);
      await git(source, 'checkout', '-q', 'main');
      return { head, merge, base };
    };

    interface Trigger {
      event: string;
      payload: Record<string, unknown>;
      sha: string;
      ref: string;
      headRef?: string;
      baseRef?: string;
      /** How the workflow's checkout step reaches the ref, as actions/checkout fetches it. */
      remoteRef: string;
    }

    /** Runs the workflow's one job on `trigger`; the covgate action's results in order. */
    const runJob = async (workflow: Workflow, trigger: Trigger) => {
      const workspace = await mkdtemp(join(jobs.workDir, 'workspace-'));
      eventCount += 1;
      const eventPath = join(jobs.workDir, `event-${eventCount}.json`);
      await writeFile(eventPath, JSON.stringify(trigger.payload));
      const runnerEnv: Record<string, string> = {
        PATH: `${jobs.fakeBin}:${process.env.PATH}`,
        HOME: workspace,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: trigger.event,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_SHA: trigger.sha,
        GITHUB_REF: trigger.ref,
        GITHUB_HEAD_REF: trigger.headRef ?? '',
        GITHUB_BASE_REF: trigger.baseRef ?? '',
        GITHUB_REPOSITORY: 'octo/web',
        GITHUB_WORKSPACE: workspace,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
      };
      const job = onlyJob(workflow);
      // The runner gives a job with `id-token: write` the means to ask for its ID token.
      if (job.permissions?.['id-token'] === 'write') {
        runnerEnv.ACTIONS_ID_TOKEN_REQUEST_URL = `${jobs.tokenServiceOrigin}/idtoken?api-version=2.0`;
        runnerEnv.ACTIONS_ID_TOKEN_REQUEST_TOKEN = 'request-token';
      }
      const covgateSteps: Awaited<ReturnType<ActionJobs['runStep']>>[] = [];
      const checkouts: { depth: string }[] = [];
      const result = await runWorkflowJob(job, {
        workspace,
        runnerEnv,
        contexts: {
          github: {
            event_name: trigger.event,
            event: trigger.payload,
            sha: trigger.sha,
            ref: trigger.ref,
            head_ref: trigger.headRef ?? '',
            base_ref: trigger.baseRef ?? '',
            repository: 'octo/web',
            token: JOB_TOKEN,
          },
          secrets: { COVGATE_TOKEN: jobs.token },
          vars: { COVGATE_URL: jobs.publicUrl },
        },
        uses: {
          // actions/checkout@v4: a shallow fetch of the one commit unless fetch-depth is 0,
          // which fetches every branch first; then the commit checked out detached.
          'actions/checkout': async (inputs) => {
            const depth = inputs['fetch-depth'] ?? '1';
            checkouts.push({ depth });
            await git(workspace, 'init', '-q');
            await git(workspace, 'remote', 'add', 'origin', `file://${origin}`);
            if (depth === '0') {
              await git(
                workspace,
                'fetch',
                '-q',
                '--no-tags',
                'origin',
                '+refs/heads/*:refs/remotes/origin/*',
              );
              await git(
                workspace,
                'fetch',
                '-q',
                '--no-tags',
                'origin',
                `+${trigger.sha}:${trigger.remoteRef}`,
              );
            } else {
              await git(
                workspace,
                'fetch',
                '-q',
                '--no-tags',
                `--depth=${depth}`,
                'origin',
                `+${trigger.sha}:${trigger.remoteRef}`,
              );
            }
            await git(workspace, 'checkout', '-q', '--detach', trigger.sha);
            return { code: 0, stdout: '', stderr: '' };
          },
          'actions/setup-node': async () => ({ code: 0, stdout: '', stderr: '' }),
          'covgate/covgate': async (inputs, env) => {
            const url = inputs.url === 'https://covgate.example.com' ? jobs.publicUrl : inputs.url;
            const step = await jobs.runStep(
              workspace,
              { ...inputs, ...(url === undefined ? {} : { url }) },
              { ...runnerEnv, ...env },
            );
            covgateSteps.push(step);
            return step;
          },
        },
      });
      return { ...result, covgateSteps, checkouts, workspace };
    };

    const pushToMain = async (source: string): Promise<Trigger> => {
      const sha = await git(source, 'rev-parse', 'main');
      return {
        event: 'push',
        payload: { ref: 'refs/heads/main', after: sha },
        sha,
        ref: 'refs/heads/main',
        remoteRef: 'refs/remotes/origin/main',
      };
    };

    const pullRequest = (
      number: number,
      pr: { head: string; merge: string; base: string },
    ): Trigger => {
      // GitHub's example pull_request event, pointed at this pull request.
      const payload = JSON.parse(
        readFileSync(
          join(repo, 'packages/cli/test/fixtures/github/pull_request.opened.json'),
          'utf8',
        ),
      );
      payload.number = number;
      payload.pull_request.number = number;
      payload.pull_request.head.sha = pr.head;
      payload.pull_request.head.ref = `pr-${number}`;
      payload.pull_request.base.sha = pr.base;
      payload.pull_request.base.ref = 'main';
      return {
        event: 'pull_request',
        payload,
        sha: pr.merge,
        ref: `refs/pull/${number}/merge`,
        headRef: `pr-${number}`,
        baseRef: 'main',
        remoteRef: `refs/remotes/pull/${number}/merge`,
      };
    };

    /** The stored runs of repository `web`, newest first. */
    const storedRuns = async () => {
      const answer = await fetch(`${jobs.server.url}/v1/executions?org=acme&repo=web&limit=50`, {
        headers: { authorization: `Bearer ${jobs.token}` },
      });
      expect(answer.status).toBe(200);
      return (
        (await answer.json()) as {
          executions: {
            id: string;
            branch: string;
            commit: string;
            outcome: string;
            coverage: number | null;
            pull_request?: number;
            skip_reason?: string;
            patch?: { covered: number; coverable: number; target: number; passed: boolean };
          }[];
        }
      ).executions;
    };

    it('github-action.md: the push passes; a pull request with untested code fails on the patch target, posted with its head commit', async () => {
      const [workflow] = covgateWorkflows('github-action.md');
      expect(workflow && eventsOf(workflow)).toEqual(['push', 'pull_request']);
      const source = await newOrigin();

      const push = await runJob(workflow as Workflow, await pushToMain(source));
      expect(push.checkouts).toEqual([{ depth: '0' }]);
      expect(push.conclusion, JSON.stringify(push.steps.map((s) => [s.outcome, s.stderr]))).toBe(
        'success',
      );
      const mainLcov = lcovTotals(
        await readFile(join(push.workspace, 'coverage/lcov.info'), 'utf8'),
      );
      expect(mainLcov).toEqual({ covered: 5, coverable: 5, percent: '100.00' });
      expect(push.covgateSteps.map((step) => step.stdout)).toEqual([
        `web@main: coverage ${mainLcov.percent}%, no baseline on main yet: nothing to compare, recorded as the first run\n`,
      ]);

      const pr = await openPullRequest(source, 5, { 'src/clamp.js': CLAMP });
      const checked = await runJob(workflow as Workflow, pullRequest(5, pr));
      expect(checked.conclusion).toBe('failure');
      const prLcov = lcovTotals(
        await readFile(join(checked.workspace, 'coverage/lcov.info'), 'utf8'),
      );
      // c8 --all counts the new file no test loads, none of its 5 lines covered; covgate's
      // total is c8's own.
      expect(prLcov).toEqual({ covered: 5, coverable: 10, percent: '50.00' });
      const [gate] = checked.covgateSteps;
      expect(gate?.code, gate?.stderr).toBe(1);
      expect(gate?.npxArgs.slice(2)).toEqual(['report', '--patch-target', '80']);
      expect(gate?.stdout).toBe(
        `fail web@pr-5: coverage ${prLcov.percent}%, baseline 100.00% on main, delta -50.00, patch 0.00% (0 of 5 lines, target 80.00%)\n`,
      );
      expect(checked.steps.map((step) => step.outcome)).toEqual([
        'success',
        'success',
        'success',
        'success',
        'failure',
      ]);
      const [latest] = await storedRuns();
      expect(latest).toMatchObject({
        branch: 'pr-5',
        commit: pr.head,
        pull_request: 5,
        outcome: 'fail',
      });
      expect(latest?.commit).not.toBe(pr.merge);
      expect(latest?.patch).toMatchObject({ coverable: 5, target: 80, passed: false });
    });

    it('required-checks.md, nothing to measure: a docs-only pull request is recorded as skipped; a code change is measured', async () => {
      const workflow = covgateWorkflows('required-checks.md').find(
        (w) => eventsOf(w).join() === 'pull_request',
      );
      expect(workflow).toBeDefined();
      const source = await newOrigin();
      const main = await runJob(
        covgateWorkflows('github-action.md')[0] as Workflow,
        await pushToMain(source),
      );
      expect(main.conclusion).toBe('success');

      const docs = await openPullRequest(source, 6, { 'README.md': '# web\n\nMore words.\n' });
      const skipped = await runJob(workflow as Workflow, pullRequest(6, docs));
      expect(skipped.conclusion).toBe('success');
      expect(skipped.steps.map((step) => step.outcome)).toEqual([
        'success', // checkout
        'success', // changes
        'skipped', // tests
        'skipped', // covgate
        'success', // covgate skip
      ]);
      expect(skipped.covgateSteps[0]?.npxArgs.slice(2)).toEqual([
        'skip',
        '--reason',
        'no change under src',
      ]);
      const [skipRun] = await storedRuns();
      expect(skipRun).toMatchObject({
        branch: 'pr-6',
        commit: docs.head,
        outcome: 'skipped',
        coverage: null,
        pull_request: 6,
        skip_reason: 'no change under src',
      });

      const code = await openPullRequest(source, 7, {
        'src/sign.js': SIGN.replace('return 0;', 'return n === 0 ? 0 : Number.NaN;'),
      });
      const measured = await runJob(workflow as Workflow, pullRequest(7, code));
      expect(measured.steps.map((step) => step.outcome)).toEqual([
        'success',
        'success',
        'success',
        'success',
        'skipped',
      ]);
      expect(measured.covgateSteps[0]?.npxArgs.slice(2, 3)).toEqual(['report']);
      const [codeRun] = await storedRuns();
      expect(codeRun).toMatchObject({
        branch: 'pr-7',
        commit: code.head,
        outcome: 'pass',
        coverage: 100,
      });
    });

    it("required-checks.md, merge queues: the queue's commit gets a run, measured against the queue's target", async () => {
      const workflow = covgateWorkflows('required-checks.md').find((w) =>
        eventsOf(w).includes('merge_group'),
      );
      expect(workflow && eventsOf(workflow)).toEqual(['pull_request', 'merge_group']);
      const source = await newOrigin();
      await runJob(covgateWorkflows('github-action.md')[0] as Workflow, await pushToMain(source));
      const queued = await openPullRequest(source, 8, { 'src/clamp.js': CLAMP });
      // GitHub's example merge_group event, pointed at the queue's commit (the merge).
      const payload = JSON.parse(
        readFileSync(
          join(repo, 'packages/cli/test/fixtures/github/merge_group.checks_requested.json'),
          'utf8',
        ),
      );
      const queueBranch = `gh-readonly-queue/main/pr-8-${queued.base}`;
      payload.merge_group.head_sha = queued.merge;
      payload.merge_group.head_ref = `refs/heads/${queueBranch}`;
      payload.merge_group.base_sha = queued.base;
      payload.merge_group.base_ref = 'refs/heads/main';
      await git(source, 'push', '-q', origin, `${queued.merge}:refs/heads/${queueBranch}`);
      const job = await runJob(workflow as Workflow, {
        event: 'merge_group',
        payload,
        sha: queued.merge,
        ref: `refs/heads/${queueBranch}`,
        remoteRef: `refs/remotes/origin/${queueBranch}`,
      });
      // The workflow sets no patch target: covgate's default 80 % applies to the queue's commit.
      const [gate] = job.covgateSteps;
      expect(job.conclusion).toBe('failure');
      expect(gate?.code, gate?.stderr).toBe(1);
      expect(gate?.stdout).toBe(
        `fail web@${queueBranch}: coverage 50.00%, baseline 100.00% on main, delta -50.00, patch 0.00% (0 of 5 lines, target 80.00%)\n`,
      );
      const [latest] = await storedRuns();
      expect(latest).toMatchObject({ branch: queueBranch, commit: queued.merge });
      expect(latest?.pull_request).toBeUndefined();
      expect(latest?.patch).toMatchObject({ coverable: 5 });
    });

    it('keyless-ci.md: the job with id-token: write and no token posts as the repository its ID token names', async () => {
      const workflows = workflowsOf(readFileSync(join(repo, 'docs/keyless-ci.md'), 'utf8'));
      const [workflow] = workflows;
      expect(workflows).toHaveLength(1);
      const job = onlyJob(workflow as Workflow);
      expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
      const trust = await fetch(`${jobs.server.url}/v1/repos/settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${jobs.session}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          org: 'acme',
          repo: 'web',
          ci_trust: [{ provider: 'github', repository: 'octo/web', ref: 'refs/heads/main' }],
        }),
      });
      expect(trust.status).toBe(200);
      const source = await newOrigin();
      const push = await runJob(workflow as Workflow, await pushToMain(source));
      expect(push.checkouts).toEqual([{ depth: '1' }]);
      expect(push.conclusion, push.steps.map((step) => step.stderr).join('\n')).toBe('success');
      const [gate] = push.covgateSteps;
      expect(gate?.npxArgs).toEqual([
        '--yes',
        `${jobs.publicUrl}/cli/covgate.tgz`,
        'report',
        '--org',
        'acme',
        '--oidc',
      ]);
      const answer = await fetch(`${jobs.server.url}/v1/executions?org=acme&repo=web&limit=1`, {
        headers: { authorization: `Bearer ${jobs.session}` },
      });
      const [latest] = (
        (await answer.json()) as { executions: { commit: string; posted_by?: string }[] }
      ).executions;
      expect(latest).toMatchObject({
        commit: await git(source, 'rev-parse', 'main'),
        posted_by: 'oidc:github:octo/web@refs/heads/main',
      });
    });
  },
);
