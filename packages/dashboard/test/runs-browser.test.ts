import { backdateRun } from '@covgate/test-support/backdate-run';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, json, navLink, shoot, skipBrowserSuite } from './support/browser.js';

const WEB_URL = 'https://github.com/acme/shop';
const sha = (digit: string) => digit.repeat(40);
const BIG_FILES = 50_000;

interface Record {
  id: string;
  outcome: string;
  delta: string;
  decided_by?: string;
  created_at: string;
}

describe.skipIf(skipBrowserSuite())('the run page and the repository headline in Chromium', () => {
  const suite = browserSuite('runs');
  let page: Page;
  let secret: string;
  const runs: { [name: string]: Record } = {};

  const dashboard = (path = '') => `${suite.origin}/dashboard/${path}`;
  const runHref = (id: string, repo = 'shop') => `/dashboard/repos/${repo}/runs/${id}`;
  const texts = (selector: string) => page.locator(selector).allTextContents();

  async function shootLoaded(name: string): Promise<void> {
    // Every part of the page has loaded (headline, history, runs).
    await page.waitForFunction(() => document.querySelectorAll('.state.loading').length === 0);
    await shoot(page, name, {
      // The phone layout never scrolls sideways: wide tables scroll inside their own box.
      onPhone: async () =>
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
        ).toBeLessThanOrEqual(0),
    });
  }

  async function ingest(name: string, body: object, gzip = false): Promise<Record> {
    const response = await suite.postRun(secret, { repo: 'shop', ...body }, { gzip });
    expect(response.status, await response.clone().text()).toBe(201);
    const record = (await response.json()) as Record;
    runs[name] = record;
    return record;
  }

  /** The `href` of every link in `scope` whose accessible name matches. */
  const hrefs = (scope: string, name: RegExp | string) =>
    page
      .locator(scope)
      .getByRole('link', { name })
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));

  beforeAll(async () => {
    page = await suite.newPage();
  });

  it('seeds runs through the API: base branch, a pull request, a component, one 31 days old', async () => {
    await suite.signInWithBannerLink(page);
    await navLink(page, 'Tokens').click();
    await page.getByLabel('Token name').fill('ci');
    await page.getByRole('button', { name: 'Create token' }).click();
    secret = (await page.getByTestId('secret').textContent()) as string;

    const old = await ingest('old', {
      branch: 'main',
      commit: sha('a'),
      coverage: 78.5,
      files: [
        { path: 'src/api/routes.ts', covered: 30, coverable: 40 },
        { path: 'src/cart/total.ts', covered: 38, coverable: 50 },
      ],
    });
    await backdateRun(suite.server.dataDir, old.id, 31);
    await ingest('base', {
      branch: 'main',
      commit: sha('b'),
      coverage: 79.23,
      files: [
        { path: 'lib/legacy.js', covered: 5, coverable: 10 },
        { path: 'src/api/routes.ts', covered: 30, coverable: 40 },
        { path: 'src/cart/tax.ts', covered: 18, coverable: 20 },
        { path: 'src/cart/total.ts', covered: 40, coverable: 50 },
        { path: 'src/util/format.ts', covered: 10, coverable: 10 },
      ],
    });
    // Loses coverage on total.ts, gains on routes.ts, adds discount.ts, drops legacy.js; the
    // drop of 1.89 points is within its thresholds, the patch (3 of 14 lines) is not.
    const pr = await ingest('pr', {
      branch: 'feature/checkout',
      commit: sha('c'),
      base_commit: sha('b'),
      pull_request: 42,
      coverage: 77.34,
      policy: { digest: 'c'.repeat(64), commit: sha('b') },
      policy_edited: 'covgate.yml',
      warn_threshold: 2,
      fail_threshold: 5,
      patch: { covered: 3, coverable: 14 },
      files: [
        {
          path: 'src/api/routes.ts',
          covered: 31,
          coverable: 40,
          patch_covered: 0,
          patch_coverable: 2,
        },
        {
          path: 'src/cart/discount.ts',
          covered: 2,
          coverable: 8,
          patch_covered: 2,
          patch_coverable: 8,
        },
        { path: 'src/cart/tax.ts', covered: 18, coverable: 20 },
        {
          path: 'src/cart/total.ts',
          covered: 38,
          coverable: 50,
          patch_covered: 1,
          patch_coverable: 4,
        },
        { path: 'src/util/format.ts', covered: 10, coverable: 10 },
      ],
    });
    expect([pr.outcome, pr.decided_by, pr.delta]).toEqual(['fail', 'patch', '-1.89']);
    await ingest('api', {
      branch: 'main',
      component: 'api',
      commit: sha('d'),
      coverage: 91,
      files: [{ path: 'services/api/handler.ts', covered: 91, coverable: 100 }],
    });
    // Only docs changed: an empty patch, and no per-file list.
    await ingest('docs', {
      branch: 'docs/readme',
      commit: sha('e'),
      pull_request: 43,
      coverage: 79.23,
      patch: { covered: 0, coverable: 0 },
    });
    await ingest(
      'big',
      {
        repo: 'big',
        branch: 'main',
        coverage: 50,
        files: Array.from({ length: BIG_FILES }, (_, n) => ({
          path: `gen/m${String(n).padStart(5, '0')}.ts`,
          covered: n % 2,
          coverable: 1,
        })),
      },
      true,
    );
    const settings = await fetch(`${suite.origin}/v1/repos/settings`, {
      method: 'PATCH',
      headers: { ...json, authorization: `Bearer ${secret}` },
      body: JSON.stringify({ repo: 'shop', patch_target: null, web_url: WEB_URL }),
    });
    expect(settings.status, await settings.clone().text()).toBe(200);
  });

  it('the repository page leads with the base branch now, 30 days of change and the last failure', async () => {
    await page.goto(dashboard('repos/shop'));
    await page.getByTestId('headline').waitFor();
    expect(await page.getByTestId('headline-current').textContent()).toBe('79.23%');
    expect(await page.getByTestId('headline-change').textContent()).toBe('+0.73 pts');
    expect(await page.getByTestId('headline-failure').textContent()).toBe(
      `${runs.pr?.created_at.slice(0, 10)} ${runs.pr?.created_at.slice(11, 16)} UTC`,
    );
    expect(await hrefs('[data-testid="headline"]', /run of/)).toEqual([
      runHref(runs.base?.id as string),
    ]);
    expect(await hrefs('[data-testid="headline-failure"]', /UTC/)).toEqual([
      runHref(runs.pr?.id as string),
    ]);
    await page.locator('.execution').first().waitFor();
    expect(await page.getByTestId('runs-count').textContent()).toBe('5 of 5 runs, newest first.');
    expect(await texts('.execution .branch')).toEqual([
      'docs/readme',
      'main',
      'feature/checkout',
      'main',
      'main',
    ]);
    // Every row links to its run page; commits and pull requests link to the code host.
    expect(await hrefs('.executions', /run details/)).toEqual(
      ['docs', 'api', 'pr', 'base', 'old'].map((name) => runHref(runs[name]?.id as string)),
    );
    expect(await hrefs('.executions', /^Commit/)).toEqual(
      ['e', 'd', 'c', 'b', 'a'].map((digit) => `${WEB_URL}/commit/${sha(digit)}`),
    );
    expect(await hrefs('.executions', /^Pull request/)).toEqual([
      `${WEB_URL}/pull/43`,
      `${WEB_URL}/pull/42`,
    ]);
    await shootLoaded('runs-repo');
  });

  it('filters by outcome, branch and component, in the URL, and the component drives the headline', async () => {
    await page.getByLabel('Outcome').selectOption('fail');
    await page.waitForURL(dashboard('repos/shop?outcome=fail'));
    await page.getByText('1 of 1 matching runs, newest first.').waitFor();
    expect(await texts('.execution .branch')).toEqual(['feature/checkout']);

    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL(dashboard('repos/shop'));
    await page.getByLabel('Branch').fill('main');
    await page.getByLabel('Branch').press('Enter');
    await page.waitForURL(dashboard('repos/shop?branch=main'));
    await page.getByText('3 of 3 matching runs, newest first.').waitFor();

    await page.getByLabel('Component').selectOption('api');
    await page.waitForURL(dashboard('repos/shop?branch=main&component=api'));
    await page.getByText('1 of 1 matching runs, newest first.').waitFor();
    expect(await texts('.execution .component-tag')).toEqual(['api']);
    await page.getByText('main · api now').waitFor();
    expect(await page.getByTestId('headline-current').textContent()).toBe('91.00%');
    expect(await page.getByTestId('headline-change').textContent()).toBe(
      'Needs two base-branch runs.',
    );
    expect(await page.getByTestId('headline-failure').textContent()).toBe('No run has failed.');

    // A link keeps the filters: a fresh load of the URL shows the same.
    await page.goto(dashboard('repos/shop?component='));
    await page.getByText('4 of 4 matching runs, newest first.').waitFor();
    expect(await page.getByLabel('Component').inputValue()).toBe('');
    await page.goto(dashboard('repos/shop?component=api'));
    await page.getByText('1 of 1 matching runs, newest first.').waitFor();
    await shootLoaded('runs-repo-component');
  });

  it('the last failing run opens the run page: verdict, links, files changed, patch and folders', async () => {
    await page.goto(dashboard('repos/shop'));
    await page.getByTestId('headline-failure').getByRole('link').click();
    await page.waitForURL(dashboard(`repos/shop/runs/${runs.pr?.id}`));
    await page.getByRole('heading', { name: 'Run on feature/checkout', level: 1 }).waitFor();
    expect(await page.locator('.verdict .outcome').textContent()).toBe('Fail');
    expect(await page.getByTestId('verdict').textContent()).toBe(
      'Failed by the patch rule: 21.42% of the patch’s lines are covered, below the target of 80.00% (covgate’s default). Coverage changed by -1.89 pts against the baseline.',
    );
    expect(await page.getByTestId('coverage').textContent()).toBe('77.34%');
    expect(await page.getByTestId('baseline').textContent()).toBe(
      `-1.89 pts from 79.23% in the baseline run, the main run at the merge base (${sha('b').slice(0, 7)})`,
    );
    expect(await hrefs('[data-testid="baseline"]', 'the baseline run')).toEqual([
      runHref(runs.base?.id as string),
    ]);
    expect(await page.getByTestId('patch').textContent()).toBe(
      '21.42% (3 / 14 lines) · target 80.00%, covgate’s default · missed',
    );
    expect(await page.getByTestId('decided-by').textContent()).toBe('the patch rule');
    // A run that sent no branch counts: no branch figure, never 0 %, and no branch columns.
    expect(await page.getByTestId('branches').textContent()).toBe('no branch data');
    expect(await page.locator('.tree-head').textContent()).not.toContain('Branches');
    expect(await hrefs('.details', /^Commit/)).toEqual([`${WEB_URL}/commit/${sha('c')}`]);
    expect(await hrefs('.details', /^Pull request/)).toEqual([`${WEB_URL}/pull/42`]);
    expect(await hrefs('.details', /^Merge base/)).toEqual([`${WEB_URL}/commit/${sha('b')}`]);
    expect(await hrefs('.details', /^Policy at commit/)).toEqual([`${WEB_URL}/commit/${sha('b')}`]);
    expect(await page.getByTestId('policy-edited').textContent()).toBe(
      'This change edits covgate.yml; the new policy applies after merge.',
    );

    expect(await page.getByTestId('changes-count').textContent()).toBe(
      '4 files changed coverage, most lost first.',
    );
    const changeRows = await page
      .locator('table.changes tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) =>
          Array.from(row.children, (cell) => (cell.textContent ?? '').replace(/\s+/g, ' ')),
        ),
      );
    expect(changeRows).toEqual([
      ['src/cart/total.ts', '80.00% 40 / 50', '76.00% 38 / 50', '-4.00 pts'],
      ['src/api/routes.ts', '75.00% 30 / 40', '77.50% 31 / 40', '+2.50 pts'],
      ['lib/legacy.js', '50.00% 5 / 10', 'not in the run', 'removed'],
      ['src/cart/discount.ts', 'not in the run', '25.00% 2 / 8', 'new file'],
    ]);
    expect(await page.getByTestId('patch-summary').textContent()).toBe(
      '11 of 14 coverable lines of the patch are not covered, in 3 of 3 files.',
    );
    const patchRows = await page
      .locator('table.patch-files tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => Array.from(row.children, (cell) => cell.textContent)),
      );
    expect(patchRows).toEqual([
      ['src/cart/discount.ts', '2 / 8', '6', '25.00%'],
      ['src/cart/total.ts', '1 / 4', '3', '25.00%'],
      ['src/api/routes.ts', '0 / 2', '2', '0.00%'],
    ]);
    // Numbers are right-aligned.
    expect(
      await page
        .locator('table.changes tbody td')
        .first()
        .evaluate((cell) => getComputedStyle(cell).textAlign),
    ).toBe('right');

    // The folder tree by keyboard alone: one tab stop, arrows to move, Right opens.
    const tree = page.getByRole('tree', { name: 'Folders and files' });
    const items = () =>
      tree
        .getByRole('treeitem')
        .evaluateAll((rows) =>
          rows.map(
            (row) =>
              `${row.getAttribute('aria-level')} ${row.querySelector('.tree-label')?.textContent}`,
          ),
        );
    expect(await items()).toEqual(['1 src/']);
    // Each key is handled by the render the previous one caused (focus moves in an effect),
    // so every press waits for its result before the next.
    const focused = () =>
      page.evaluate(() => document.activeElement?.getAttribute('data-path') ?? null);
    const expanded = (path: string) =>
      tree.locator(`[data-path="${path}"]`).getAttribute('aria-expanded');
    const press = async (key: string, focus: string, open?: [string, 'true' | 'false']) => {
      await page.keyboard.press(key);
      await expect.poll(focused).toBe(focus);
      if (open) await expect.poll(() => expanded(open[0])).toBe(open[1]);
    };
    await tree.getByRole('treeitem').first().focus();
    await press('ArrowRight', 'src/', ['src/', 'true']);
    await press('ArrowRight', 'src/api/');
    expect(await items()).toEqual(['1 src/', '2 api/', '2 cart/', '2 util/']);
    await press('ArrowDown', 'src/cart/');
    await press('ArrowRight', 'src/cart/', ['src/cart/', 'true']);
    await press('ArrowRight', 'src/cart/discount.ts');
    await press('ArrowRight', 'src/cart/discount.ts');
    expect(await items()).toEqual([
      '1 src/',
      '2 api/',
      '2 cart/',
      '3 discount.ts',
      '3 tax.ts',
      '3 total.ts',
      '2 util/',
    ]);
    const cart = tree.locator('[data-path="src/cart/"]');
    expect(await cart.textContent()).toContain('74.35%');
    await press('ArrowLeft', 'src/cart/');
    await press('ArrowLeft', 'src/cart/', ['src/cart/', 'false']);
    expect(await items()).toEqual(['1 src/', '2 api/', '2 cart/', '2 util/']);
    await press('ArrowDown', 'src/util/');
    await press('ArrowRight', 'src/util/', ['src/util/', 'true']);
    await shootLoaded('runs-run');
  });

  it('says plainly what a run lacks: no baseline, no files sent, an empty patch', async () => {
    await page.goto(dashboard(`repos/shop/runs/${runs.docs?.id}`));
    await page.getByRole('heading', { name: 'Run on docs/readme', level: 1 }).waitFor();
    expect(await page.locator('main .state.empty').allTextContents()).toEqual([
      'This run sent no per-file list: covgate cannot say which files changed.',
      'The patch has no coverable line (only tests, docs or configuration changed): the patch rule does not fail it.',
      'This run sent no per-file list: there is no folder to show.',
    ]);
    await shootLoaded('runs-run-empty');
    await page.goto(dashboard(`repos/shop/runs/${runs.old?.id}`));
    await page.getByRole('heading', { name: 'Run on main', level: 1 }).waitFor();
    expect(await page.locator('.verdict .outcome').textContent()).toBe('No baseline');
    expect(await page.locator('main .state.empty').allTextContents()).toEqual([
      'No baseline run: nothing to compare the files with.',
      'Not a pull request: a run of a branch has no patch to judge, only its total coverage.',
    ]);
    expect(await page.getByTestId('patch').textContent()).toBe(
      'Not a pull request: the run judged the total only.',
    );
  });

  it('says a patch below its target is below it when the coverage change failed the run, and tells an unmeasured pull request from a branch', async () => {
    await ingest('dropBase', { repo: 'drop', branch: 'main', commit: sha('f'), coverage: 83.88 });
    // The newcomer's pull request: coverage fell 10.25 points, and 7 of the 13 changed lines ran.
    const dropped = await ingest('dropped', {
      repo: 'drop',
      branch: 'feature/drop',
      commit: sha('1'),
      base_commit: sha('f'),
      pull_request: 1,
      coverage: 73.63,
      warn_threshold: 1,
      fail_threshold: 5,
      patch: { covered: 7, coverable: 13 },
    });
    expect([dropped.outcome, dropped.decided_by, dropped.delta]).toEqual([
      'fail',
      'delta',
      '-10.25',
    ]);
    const unmeasured = await ingest('unmeasured', {
      repo: 'drop',
      branch: 'feature/shallow',
      commit: sha('2'),
      pull_request: 2,
      coverage: 83.88,
    });
    await page.goto(dashboard(`repos/drop/runs/${dropped.id}`));
    await page.getByRole('heading', { name: 'Run on feature/drop', level: 1 }).waitFor();
    expect(await page.getByTestId('verdict').textContent()).toBe(
      'Failed by the coverage change: -10.25 pts against the baseline. The patch is below its target too: 53.84% covered, target 80.00% (covgate’s default).',
    );
    expect(await page.getByTestId('patch').textContent()).toBe(
      '53.84% (7 / 13 lines) · target 80.00%, covgate’s default · missed',
    );
    await shootLoaded('runs-run-patch-missed');
    await page.goto(dashboard(`repos/drop/runs/${unmeasured.id}`));
    await page.getByRole('heading', { name: 'Run on feature/shallow', level: 1 }).waitFor();
    expect(await page.getByTestId('patch').textContent()).toBe(
      'Not measured: the run of pull request #2 sent no patch.',
    );
    expect(await page.locator('main .state.empty').allTextContents()).toContain(
      'The patch of pull request #2 was not measured: its run sent no patch, so only the total coverage was judged. The CLI measures it from the merge base when the history reaches it (in CI, check out with fetch-depth: 0).',
    );
    await shootLoaded('runs-run-patch-unmeasured');
  });

  it('shows a run’s branch figure beside its coverage, in the runs list and in the folder tree', async () => {
    const branchy = await ingest('branchy', {
      repo: 'branchy',
      branch: 'main',
      commit: sha('3'),
      coverage: 80,
      branches: { covered: 11, total: 18 },
      files: [
        { path: 'docs/guide.md', covered: 0, coverable: 0 },
        { path: 'src/cart.ts', covered: 8, coverable: 10, branches: { covered: 3, total: 4 } },
        { path: 'src/lib/tax.ts', covered: 8, coverable: 10, branches: { covered: 8, total: 14 } },
      ],
    });
    await ingest('branchless', { repo: 'branchy', branch: 'main', commit: sha('4'), coverage: 81 });
    const failed = await ingest('branchRule', {
      repo: 'branchy',
      branch: 'feature/branches',
      commit: sha('5'),
      coverage: 80,
      branches: { covered: 11, total: 18 },
      branch_target: 70,
    });
    expect([failed.outcome, failed.decided_by]).toEqual(['fail', 'branches']);
    await page.goto(dashboard('repos/branchy'));
    await page.locator('.execution').first().waitFor();
    // Only the run that sent branch counts shows a branch figure.
    expect(await texts('.execution .branches')).toEqual([
      '61.11% of branches',
      '61.11% of branches',
    ]);
    await shootLoaded('runs-repo-branches');

    await page.goto(dashboard(`repos/branchy/runs/${branchy.id}`));
    await page.getByRole('heading', { name: 'Run on main', level: 1 }).waitFor();
    expect(await page.getByTestId('coverage').textContent()).toBe('80.00%');
    expect(await page.getByTestId('branches').textContent()).toBe('61.11% (11 / 18 branches)');
    const tree = page.getByRole('tree', { name: 'Folders and files' });
    await tree.getByRole('treeitem').first().waitFor();
    const cells = () =>
      tree
        .getByRole('treeitem')
        .evaluateAll((rows) =>
          rows.map((row) =>
            Array.from(row.children, (cell) => (cell.textContent ?? '').trim()).slice(1),
          ),
        );
    expect(await page.locator('.tree-head span').allTextContents()).toEqual([
      'Folder or file',
      'Coverage',
      'Lines covered',
      'Branches',
      'Branches covered',
      'Files',
    ]);
    expect(await cells()).toEqual([
      ['—', '0 / 0', '—', '—', '1'],
      ['80.00%', '16 / 20', '61.11%', '11 / 18', '2'],
    ]);
    await tree.locator('[data-path="src/"]').click();
    await tree.locator('[data-path="src/lib/"]').click();
    await expect.poll(cells).toEqual([
      ['—', '0 / 0', '—', '—', '1'],
      ['80.00%', '16 / 20', '61.11%', '11 / 18', '2'],
      ['80.00%', '8 / 10', '57.14%', '8 / 14', '1'],
      ['80.00%', '8 / 10', '57.14%', '8 / 14', ''],
      ['80.00%', '8 / 10', '75.00%', '3 / 4', ''],
    ]);
    await shootLoaded('runs-run-branches');
    await page.goto(dashboard(`repos/branchy/runs/${runs.branchRule?.id}`));
    await page.getByRole('heading', { name: 'Run on feature/branches', level: 1 }).waitFor();
    expect(await page.getByTestId('verdict').textContent()).toBe(
      'Failed by the branch rule: 61.11% of branches are covered, below the floor of 70.00%. Coverage changed by -1.00 pts against the baseline.',
    );
    expect(await page.getByTestId('decided-by').textContent()).toBe('the branch rule (70.00%)');
  });

  it('shows a skipped commit: the reason, nothing measured, the base branch figure, and no figure of its own in the list', async () => {
    const response = await fetch(`${suite.origin}/v1/executions/skip`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: 'drop',
        branch: 'docs/typo',
        commit: sha('3'),
        pull_request: 3,
        reason: 'docs only',
      }),
    });
    expect(response.status).toBe(201);
    const skipped = (await response.json()) as Record;
    await page.goto(dashboard(`repos/drop/runs/${skipped.id}`));
    await page.getByRole('heading', { name: 'Run on docs/typo', level: 1 }).waitFor();
    expect(await page.locator('.verdict .outcome').textContent()).toBe('Skipped');
    expect(await page.getByTestId('verdict').textContent()).toBe(
      'Skipped: “docs only”. Nothing was measured on this commit, so no rule judged it; the base branch’s figure stands.',
    );
    expect(await page.getByTestId('coverage').textContent()).toBe('not measured');
    expect(await page.getByTestId('baseline').textContent()).toBe(
      'Nothing measured: the base branch’s figure stands, 83.88% in its latest passing run.',
    );
    expect(await page.getByTestId('patch').textContent()).toBe(
      'not measured: the commit was skipped',
    );
    expect(await page.getByTestId('decided-by').textContent()).toBe(
      'no rule: nothing was measured',
    );
    expect(await page.locator('main .state.empty').allTextContents()).toEqual([
      'This commit was recorded as having nothing to measure (docs only): it has no files, patch or folders, and it is never a baseline.',
    ]);
    await shootLoaded('runs-run-skipped');
    // In the repository's list the skip shows its outcome word and no figure of its own.
    await page.goto(dashboard('repos/drop'));
    const row = page.locator('li.execution').filter({ hasText: 'docs/typo' });
    await row.waitFor();
    expect(await row.locator('.outcome').textContent()).toBe('Skipped');
    expect(await row.locator('.coverage').textContent()).toBe('not measured');
    expect(await row.locator('.delta').textContent()).toBe('nothing measured');
    await page.getByLabel('Outcome').selectOption('skipped');
    await page.getByText('1 of 1 matching runs, newest first.').waitFor();
  });

  it('says an unknown run is not found, with the way back to its repository and no useless retry', async () => {
    const unknown = 'exe_00000000000000000000000000';
    await page.goto(dashboard(`repos/shop/runs/${unknown}`));
    await page.getByRole('heading', { name: 'Run not found', level: 1 }).waitFor();
    expect(await page.getByTestId('run-not-found').textContent()).toBe(
      `No run ${unknown} of shop is recorded in this organisation. The link may be mistyped, or the run may belong to another repository or organisation.`,
    );
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await hrefs('main', 'Back to the runs of shop')).toEqual(['/dashboard/repos/shop']);
    await expect.poll(() => page.title()).toBe('Run not found · covgate');
    await shootLoaded('runs-run-not-found');
    // A run of another repository under this one's path: the same page.
    await page.goto(dashboard(`repos/shop/runs/${runs.dropped?.id}`));
    await page.getByRole('heading', { name: 'Run not found', level: 1 }).waitFor();
  });

  it('says once, not once per part of the page, that the server cannot be reached, and loads again on Try again', async () => {
    await page.goto(dashboard(`repos/shop/runs/${runs.pr?.id}`));
    await page.getByRole('heading', { name: 'Run on feature/checkout', level: 1 }).waitFor();
    const api = `${suite.origin}/v1/**`;
    await page.route(api, (route) => route.abort('connectionrefused'));
    try {
      // The repository page loads four things: its headline, history, runs and GitHub link.
      await page.locator('.crumbs').getByRole('link', { name: 'shop' }).click();
      await page.getByRole('heading', { name: 'shop', level: 1 }).waitFor();
      await expect.poll(() => page.locator('.state.loading').count()).toBe(0);
      expect(await page.getByRole('alert').allTextContents()).toEqual([
        'The covgate server could not be reached. Check your connection and try again.Try again',
      ]);
      await shootLoaded('server-unreachable');
    } finally {
      // The later tests need the server.
      await page.unroute(api);
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('headline').waitFor();
    await page.locator('.execution').first().waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('names a part carried forward on the run page, with its commit, run and age', async () => {
    const api = (method: string, path: string, body: object) =>
      fetch(`${suite.origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const settings = await api('PATCH', '/v1/repos/settings', {
      repo: 'sharded',
      carryforward_parts: ['integration'],
    });
    expect(settings.status).toBe(200);
    // src/a.ts lines 1-4: unit covers 1-2, integration 3-4.
    const part = (name: string, covered: number[], where: object) =>
      ingest(`part-${name}`, {
        repo: 'sharded',
        coverage: 50,
        part: name,
        expect_parts: ['integration', 'unit'],
        files: [
          { path: 'src/a.ts', covered: 2, coverable: 4, lines: { coverable: [1, 4], covered } },
        ],
        ...where,
      });
    const onMain = { branch: 'main', commit: sha('d') };
    await part('unit', [2, 2], onMain);
    const base = await part('integration', [0, 2, 2], onMain);
    const pr = await part('unit', [2, 2], {
      branch: 'feature/shards',
      commit: sha('e'),
      base_commit: sha('d'),
      pull_request: 43,
    });
    expect(pr.outcome).toBe('pending');
    const finished = await api('POST', '/v1/executions/finish', {
      repo: 'sharded',
      commit: sha('e'),
    });
    expect(finished.status).toBe(200);

    await page.goto(dashboard(`repos/sharded/runs/${pr.id}`));
    await page.getByTestId('parts').waitFor();
    expect(await page.getByTestId('coverage').textContent()).toBe('100.00%');
    expect(await texts('[data-testid="parts"] > div')).toEqual(['Receivedunit']);
    expect(await page.getByTestId('parts-carried').textContent()).toBe(
      'integration carried from ddddddd (its run), less than a minute old',
    );
    expect(await hrefs('[data-testid="parts-carried"]', 'its run')).toEqual([
      runHref(base.id, 'sharded'),
    ]);
    expect(await page.getByText('Carried forward: not run on this commit.').count()).toBe(1);
    await shootLoaded('run-carried-part');
  });

  it('opens a folder of 50 000 files a page at a time', async () => {
    await page.goto(dashboard(`repos/big/runs/${runs.big?.id}`));
    const tree = page.getByRole('tree', { name: 'Folders and files' });
    await tree.getByRole('treeitem').first().waitFor();
    expect(await tree.getByRole('treeitem').count()).toBe(1);
    expect(await tree.getByRole('treeitem').first().textContent()).toContain('50,000');
    await tree.getByRole('treeitem').first().click();
    await page.waitForFunction(() => document.querySelectorAll('[role="treeitem"]').length > 1);
    expect(await tree.getByRole('treeitem').count()).toBe(1 + 200 + 1);
    const more = tree.getByRole('treeitem').last();
    expect(await more.textContent()).toBe('Show 200 more of 49,800 not shown');
    await more.click();
    await page.waitForFunction(() => document.querySelectorAll('[role="treeitem"]').length > 202);
    expect(await tree.getByRole('treeitem').count()).toBe(1 + 400 + 1);
  });

  it('a request answered 401 goes to the sign-in page', async () => {
    await page.goto(dashboard('repos/shop'));
    await page.locator('.execution').first().waitFor();
    await page.context().clearCookies();
    await page.getByLabel('Outcome').selectOption('pass');
    await page.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
    expect(await page.getByText('Your session ended. Sign in again.').count()).toBe(1);
    expect(suite.problems.cspViolations).toEqual([]);
    expect(suite.problems.pageErrors).toEqual([]);
  });
});
