// Issue 38's "Done when": the path a newcomer walks, on the built tree, in Chromium. The
// reference server as `pnpm start` runs it (its built entry, a data folder of its own), the
// banner's sign-in link, the wizard, the wizard's own command run in a scratch project with a
// real coverage tool (c8 over node --test; the CLI fetched from the server, no registry), the
// run on the dashboard, a second person who opens an invite and signs in as themselves with
// `covgate-admin login-link --name`, and a pull request on a shallow clone that does not pass.
// Each page is written to packages/dashboard/screenshots/newcomer-*.png for a person to look at.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DIST } from '@covgate/test-support/built-server';
import { run } from '@covgate/test-support/processes';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, navLink, shoot, skipBrowserSuite } from './support/browser.js';

const REPO = 'shop-cart';

/** The project's code: `sign` is tested; `clamp`, which the pull request adds beside it, is not. */
const SIGN = `export function sign(n) {
  if (n > 0) return 1;
  if (n < 0) return -1;
  return 0;
}
`;
const SIGN_TEST = `import assert from 'node:assert';
import { test } from 'node:test';
import { sign } from '../src/sign.mjs';
test('sign', () => {
  assert.equal(sign(2), 1);
  assert.equal(sign(-2), -1);
  assert.equal(sign(0), 0);
});
`;
// In the file the tests load: c8 without --all leaves a file no test loads out of its report,
// and a change there would count as "not in any report" rather than as untested.
const CLAMP = `
export function clamp(n, low, high) {
  if (low > high) {
    throw new RangeError('low is above high');
  }
  if (n < low) {
    return low;
  }
  if (n > high) {
    return high;
  }
  return n;
}
`;

/** c8 as the workspace has it: the scratch project's "npm install --save-dev c8", offline. */
const c8Dir = dirname(
  createRequire(new URL('../../cli/package.json', import.meta.url)).resolve('c8/package.json'),
);

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1);

const cliBuilt = existsSync(join(DIST, 'cli', 'covgate.tgz'));

describe.skipIf(skipBrowserSuite() || (!cliBuilt && process.env.CI !== '1'))(
  "a newcomer's first day, from the server's banner to a pull request that does not pass",
  () => {
    // A first start outside production, as `pnpm start` makes it: no PUBLIC_URL, no code host.
    const suite = browserSuite('newcomer');
    let work: string;
    let owner: Page;
    let project: string;
    let origin: string;
    /** What the wizard says to run, as shown. */
    let command: string;
    /** The environment of a CI job that reaches the covgate server and nothing else. */
    let job: NodeJS.ProcessEnv;
    /**
     * What the pages logged as errors (a request that could only 404 shows red there), with the
     * URL of the failed request. A signed-out browser's session check (`GET /v1/session`, 401)
     * is left out: it is how the app learns to show the sign-in page.
     */
    const consoleErrors: string[] = [];
    const watchConsole = (page: Page) =>
      page.on('console', (message) => {
        const at = new URL(message.location().url || page.url());
        const signedOutCheck = at.pathname === '/v1/session' && message.text().includes('401');
        if (message.type() === 'error' && !signedOutCheck) {
          consoleErrors.push(`${at.pathname}${at.search}: ${message.text()}`);
        }
      });

    const dashboard = (path = '') => `${suite.origin}/dashboard/${path}`;
    const git = async (cwd: string, ...args: string[]) => {
      const done = await run('git', args, { cwd, env: job });
      expect(done.code, `git ${args.join(' ')}: ${done.stderr}`).toBe(0);
      return done.stdout.trim();
    };
    /** Runs the wizard's command as a person pastes it into a shell. */
    const runWizardCommand = (cwd: string, env: NodeJS.ProcessEnv = {}) =>
      run('bash', ['-c', command], { cwd, env: { ...job, ...env }, timeoutMs: 120_000 });

    /** `npm install --save-dev c8`, made with the workspace's c8 (no registry in a test). */
    const installC8 = async (dir: string) => {
      await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
      await symlink(c8Dir, join(dir, 'node_modules', 'c8'), 'dir');
      await symlink(join(c8Dir, 'bin', 'c8.js'), join(dir, 'node_modules', '.bin', 'c8'));
    };

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'covgate-newcomer-'));
      const home = join(work, 'home');
      await mkdir(home);
      job = {
        PATH: process.env.PATH,
        HOME: home,
        GIT_AUTHOR_NAME: 'Newcomer',
        GIT_AUTHOR_EMAIL: 'newcomer@example.com',
        GIT_COMMITTER_NAME: 'Newcomer',
        GIT_COMMITTER_EMAIL: 'newcomer@example.com',
        GIT_CONFIG_NOSYSTEM: '1',
        // Port 9 (discard): a registry nothing answers at. The CLI must come from the server.
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_cache: join(work, 'npm-cache'),
        npm_config_fetch_retries: '0',
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      };
      owner = await suite.newPage({ clipboardAt: suite.origin });
      watchConsole(owner);
    });

    afterAll(async () => {
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('the banner link opens the wizard, whose token and command come first', async () => {
      await suite.signInWithBannerLink(owner);
      await owner.getByRole('heading', { name: 'Set up your first repository' }).waitFor();
      await shoot(owner, 'newcomer-01-wizard');

      await owner.getByLabel('Repository name').fill(REPO);
      await owner.getByRole('button', { name: 'Create token' }).click();
      await owner.getByTestId('secret').waitFor();
      // A wizard that asks for the coverage tool: node --test with c8, this project's.
      await owner.getByRole('radio', { name: 'node --test with c8' }).check();
      const shown = owner.getByRole('figure', { name: 'covgate run command' }).locator('code');
      command = (await shown.textContent()) as string;
      expect(command).toContain(`export COVGATE_URL=${suite.origin}\n`);
      expect(command).toContain(
        `npx --yes "$COVGATE_URL/cli/covgate.tgz" run --repo ${REPO} -- npx c8 --all --reporter=lcov node --test`,
      );
      await owner.getByTestId('onboarding-status').waitFor();
      expect(await owner.getByTestId('onboarding-status').textContent()).toContain(
        `Waiting for the first run of ${REPO}`,
      );
      await shoot(owner, 'newcomer-02-command');
    });

    it("the wizard's command, pasted into a scratch project, gates a real c8 report", async () => {
      project = join(work, REPO);
      await mkdir(join(project, 'src'), { recursive: true });
      await mkdir(join(project, 'test'));
      await writeFile(join(project, 'src', 'sign.mjs'), SIGN);
      await writeFile(join(project, 'test', 'sign.test.mjs'), SIGN_TEST);
      await writeFile(
        join(project, 'package.json'),
        `${JSON.stringify(
          {
            name: REPO,
            private: true,
            type: 'module',
            scripts: { test: 'c8 --all --reporter=lcov node --test' },
            devDependencies: { c8: '^10.1.3' },
          },
          null,
          2,
        )}\n`,
      );
      await writeFile(join(project, '.gitignore'), 'node_modules/\ncoverage/\n');
      await installC8(project);
      await git(project, 'init', '-q', '-b', 'main');
      await git(project, 'add', '.');
      await git(project, 'commit', '-q', '-m', 'sign');

      const gated = await runWizardCommand(project);

      expect(gated.stderr).toContain('covgate: coverage/lcov.info (lcov): 5 of 5 lines in 1 file');
      // After the test run's own output, covgate's line.
      expect(lastLine(gated.stdout)).toBe(
        `${REPO}@main: coverage 100.00%, no baseline on main yet: nothing to compare, recorded as the first run`,
      );
      expect(gated.code).toBe(0);
    });

    it('the wizard sees the run, and the repository page shows it', async () => {
      // The wizard polls every 5 s.
      await owner.getByText('First run received').waitFor({ timeout: 15_000 });
      expect(await owner.getByTestId('first-coverage').textContent()).toBe('100.00%');
      await shoot(owner, 'newcomer-03-first-run');

      await owner.getByRole('link', { name: `Open ${REPO}` }).click();
      await owner.getByRole('heading', { name: REPO, level: 1 }).waitFor();
      await owner.locator('.chart-canvas[data-points="1"]').waitFor();
      await shoot(owner, 'newcomer-04-repository');
      await navLink(owner, 'Repositories').click();
      await owner.locator('table.repos tbody tr').first().waitFor();
      expect(await owner.locator('table.repos tbody tr th').allTextContents()).toEqual([REPO]);
      await shoot(owner, 'newcomer-05-repositories');
    });

    it('a second person opens an invite and signs in as themselves with a link made for them', async () => {
      await navLink(owner, 'Members').click();
      await owner.getByLabel('Role of the invited person').selectOption('admin');
      await owner.getByRole('button', { name: 'Create invite link' }).click();
      const inviteUrl = (await owner.getByTestId('invite-url').textContent()) as string;
      await shoot(owner, 'newcomer-06-invite-made');

      const bea = await suite.newPage();
      watchConsole(bea);
      await bea.goto(inviteUrl);
      await bea.getByRole('heading', { name: 'Join Development on covgate' }).waitFor();
      await shoot(bea, 'newcomer-07-invite-page');
      await bea.getByRole('button', { name: 'Join' }).click();
      await bea.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
      await shoot(bea, 'newcomer-08-sign-in');

      // What the sign-in page says to ask for: a link for a new person, by name.
      const made = await run(
        process.execPath,
        [join(DIST, 'admin.js'), 'login-link', 'dev', '--name', 'Bea Guest'],
        { env: { PATH: process.env.PATH, COVGATE_DATA_DIR: suite.server.dataDir } },
      );
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toContain('sign-in link for a new person, "Bea Guest"');
      const link = made.stdout.trim();
      expect(link.startsWith(`${suite.origin}/auth/link?token=cvgl_`)).toBe(true);
      await bea.goto(link);
      await bea.getByTestId('invite-joined').waitFor();
      expect(await bea.getByTestId('invite-joined').locator('p').textContent()).toBe(
        'You joined Development (dev) as admin.',
      );
      await bea.locator('table.repos tbody tr').first().waitFor();
      expect(await bea.locator('table.repos tbody tr th').allTextContents()).toEqual([REPO]);
      await shoot(bea, 'newcomer-09-joined');

      await navLink(bea, 'Members').click();
      await bea.locator('table.members tbody tr').nth(1).waitFor();
      const members = await bea.locator('table.members tbody tr th').allTextContents();
      expect(members.map((name) => name.replace(/usr_\w+$/, ''))).toEqual([
        'Administrator',
        'Bea Guest (you)',
      ]);
      await shoot(bea, 'newcomer-10-members');
    });

    it('a pull request on a shallow clone, its new code untested, does not pass', async () => {
      origin = `${project}.git`;
      await git(work, 'clone', '-q', '--bare', project, origin);
      await git(project, 'remote', 'add', 'origin', origin);
      await git(project, 'checkout', '-q', '-b', 'feature/clamp');
      await writeFile(join(project, 'src', 'sign.mjs'), SIGN + CLAMP);
      await git(project, 'add', '.');
      await git(project, 'commit', '-q', '-m', 'clamp, untested');
      await git(project, 'push', '-q', 'origin', 'feature/clamp');
      const head = await git(project, 'rev-parse', 'HEAD');
      // The job's checkout as actions/checkout leaves it by default: one commit, no main.
      const checkout = join(work, 'checkout');
      await git(
        work,
        'clone',
        '-q',
        '--depth',
        '1',
        '--branch',
        'feature/clamp',
        `file://${origin}`,
        checkout,
      );
      await installC8(checkout);
      const event = join(work, 'pull_request.json');
      await writeFile(
        event,
        JSON.stringify({
          number: 7,
          pull_request: {
            number: 7,
            head: { ref: 'feature/clamp', sha: head },
            base: { ref: 'main' },
          },
        }),
      );

      const gated = await runWizardCommand(checkout, {
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event,
        GITHUB_REF: 'refs/pull/7/merge',
        GITHUB_HEAD_REF: 'feature/clamp',
        GITHUB_BASE_REF: 'main',
        GITHUB_SHA: 'e'.repeat(40),
      });

      expect(gated.stderr).toContain('covgate: fetching the history the patch needs: git fetch');
      // V8 counts a function's own lines as run when its module loads: the figures come from
      // the line, which must say the patch missed its target.
      const verdictLine = lastLine(gated.stdout) as string;
      const figures = new RegExp(
        `^fail ${REPO}@feature/clamp: coverage \\d+\\.\\d\\d%, baseline 100\\.00% on main, delta -\\d+\\.\\d\\d, patch (\\d+\\.\\d\\d)% \\((\\d+) of (\\d+) lines, target 80\\.00%\\)$`,
      ).exec(verdictLine);
      expect(figures, verdictLine).not.toBeNull();
      const patch = figures?.[1] as string;
      expect(Number(patch)).toBeLessThan(80);
      expect(gated.code).toBe(1);

      const listed = (await (
        await owner.request.get(`${suite.origin}/v1/executions?org=dev&repo=${REPO}&limit=1`)
      ).json()) as { executions: { id: string; branch: string; outcome: string }[] };
      const [pr] = listed.executions;
      expect([pr?.branch, pr?.outcome]).toEqual(['feature/clamp', 'fail']);
      await owner.goto(dashboard(`repos/${REPO}/runs/${pr?.id}`));
      await owner.getByTestId('verdict').waitFor();
      const verdict = (await owner.getByTestId('verdict').textContent()) as string;
      expect(verdict).toMatch(/patch/i);
      expect(verdict).not.toMatch(/meets its target/);
      expect(await owner.getByTestId('patch').textContent()).toContain(`${patch}%`);
      await shoot(owner, 'newcomer-11-pull-request-run');

      await owner.goto(dashboard(`repos/${REPO}`));
      await owner.locator('.chart-canvas[data-points="2"]').waitFor();
      await shoot(owner, 'newcomer-12-repository-after');
      expect(suite.problems).toEqual({ cspViolations: [], pageErrors: [] });
      // Not one red line: the repository and members pages learn from their answers whether
      // there is a GitHub link, rather than from a 404.
      expect(consoleErrors).toEqual([]);
    });
  },
);
