import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import { encodeLineData, encodeRanges } from '@covgate/core/line-data';
import { createSqliteStore } from '@covgate/sqlite';
import { type FakeGithubRest, startFakeGithubRest } from '@covgate/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, json, shoot, skipBrowserSuite } from './support/browser.js';

// A file's lines on the run page in Chromium, against the built reference server: a click on a
// file of the run opens its lines, covered, missed or not coverable, with the patch's changed
// lines marked and, for a repository linked to (a fake) GitHub, the source at the run's
// commit beside them; an unlinked repository's file shows line numbers and why.

const SESSION_SECRET = 'run-file-browser-session-secret-0123456789abcdef';
const GITHUB_TOKEN = 'github_pat_11RUNFILE000000000000000_secretpartWXYZ';
const COMMIT = 'c'.repeat(40);
const PATH = 'src/cart/discount.ts';
const SOURCE = `export function discount(amount, code) {
  if (code === 'HALF') {
    return amount / 2;
  }
  if (code === 'TENOFF') {
    const off = Math.min(10, amount);
    return amount - off;
  }
  return amount;
}

export function refund(amount) {
  const fee = 1;
  return Math.max(0, amount - fee);
}

// Prices are in cents.
export const CURRENCY = 'EUR';
`;
const range = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => first + i);
const COVERABLE = [...range(1, 10), ...range(12, 15), 18];
const COVERED = [1, 2, 3, 4, 5, 8, 9, 10, 18];
const PATCH = [5, 6, 7, 8, 12, 13, 14, 15, 17];

describe.skipIf(skipBrowserSuite())("a run's file: its lines and its source in Chromium", () => {
  let github: FakeGithubRest;
  beforeAll(async () => {
    github = await startFakeGithubRest();
    github.allowToken(GITHUB_TOKEN, ['acme/shop']);
    github.files.add('acme/shop', COMMIT, PATH, SOURCE);
  });
  afterAll(async () => {
    await github?.close();
  });
  const suite = browserSuite('run-file', {
    SESSION_SECRET,
    // The fake GitHub listens on loopback.
    ALLOW_PRIVATE_CODE_HOSTS: '1',
  });
  let page: Page;
  const runs: Record<string, string> = {};

  const rowText = (line: number) =>
    page
      .locator(`#L${line}`)
      .locator('th, td')
      .allTextContents()
      .then((cells) => cells.map((cell) => cell.trim()));

  beforeAll(async () => {
    page = await suite.newPage();
    await suite.signInWithBannerLink(page);
    const session = (await page.evaluate(() =>
      fetch('/v1/session').then((answer) => answer.json()),
    )) as { org_id: string };
    const created = (await page.evaluate(
      (headers) =>
        fetch('/v1/tokens', {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'ci' }),
        }).then((answer) => answer.json()),
      json,
    )) as { secret: string };
    for (const repo of ['shop', 'plain', 'pruned']) {
      const response = await suite.postRun(created.secret, {
        repo,
        branch: 'feature/refunds',
        commit: COMMIT,
        pull_request: 42,
        coverage: 60,
        patch: { covered: 2, coverable: 8 },
        files: [
          {
            path: PATH,
            covered: COVERED.length,
            coverable: COVERABLE.length,
            patch_covered: 2,
            patch_coverable: 8,
            lines: encodeLineData({ coverable: COVERABLE, covered: COVERED }),
            patch_lines: encodeRanges(PATCH),
          },
          { path: 'src/cart/total.ts', covered: 5, coverable: 6 },
        ],
      });
      expect(response.status, await response.clone().text()).toBe(201);
      runs[repo] = ((await response.json()) as { id: string }).id;
    }
    const store = await createSqliteStore({
      url: pathToFileURL(join(suite.server.dataDir, 'covgate.db')).href,
    });
    try {
      const now = new Date();
      // What retention leaves of a run: its record, not its list and lines.
      await store.pruneRunDetail(session.org_id, [runs.pruned as string], now);
      await store.putRepositoryLink({
        orgId: session.org_id,
        repo: 'shop',
        host: 'github',
        repository: 'acme/shop',
        apiUrl: github.apiUrl,
        credential: encryptCredential(
          GITHUB_TOKEN,
          repositoryLinkCredentialContext(session.org_id, 'shop'),
          { sessionSecret: SESSION_SECRET },
        ),
        credentialHint: '…WXYZ',
        createdBy: 'usr_test',
        createdAt: now,
        updatedAt: now,
      });
    } finally {
      await store.close();
    }
  });

  it("opens a patch file's lines from the run page, with GitHub's source beside the marks", async () => {
    await page.goto(`${suite.origin}/dashboard/repos/shop/runs/${runs.shop}`);
    await page.locator('table.patch-files').getByRole('link', { name: PATH }).click();
    await page.waitForURL(
      `${suite.origin}/dashboard/repos/shop/runs/${runs.shop}/files/src%2Fcart%2Fdiscount.ts`,
    );
    await page.getByText('Source from GitHub at commit ccccccc.').waitFor();
    expect(await page.title()).toBe(`${PATH} in a run of shop · covgate`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(PATH);
    expect(await page.getByTestId('file-lines').textContent()).toBe('9 / 15 (60.00%)');
    expect(await page.getByTestId('file-patch').textContent()).toBe('2 / 8 (25.00%)');
    expect(await page.getByTestId('file-missed-changed').textContent()).toBe(
      'Changed lines no test ran: 6-7, 12-15',
    );
    // One row per line of the source; each says what it is in words, not colour alone.
    expect(await page.locator('table.line-table tbody tr').count()).toBe(18);
    expect(await rowText(1)).toEqual([
      '1',
      'covered',
      '',
      'export function discount(amount, code) {',
    ]);
    expect(await rowText(6)).toEqual([
      '6',
      'missed',
      'changed',
      'const off = Math.min(10, amount);',
    ]);
    expect(await rowText(8)).toEqual(['8', 'covered', 'changed', '}']);
    expect(await rowText(11)).toEqual(['11', '', '', '']);
    expect(await rowText(17)).toEqual(['17', '', 'changed', '// Prices are in cents.']);
    expect(github.requests.filter((line) => line.includes('/contents/'))).toEqual([
      `GET /api/v3/repos/acme/shop/contents/${PATH}`,
    ]);
    // The first missed changed range jumps to its line.
    await page.getByRole('link', { name: '12-15' }).click();
    await page.waitForURL(
      `${suite.origin}/dashboard/repos/shop/runs/${runs.shop}/files/src%2Fcart%2Fdiscount.ts#L12`,
    );
    expect(await page.locator('tr:target th').textContent()).toBe('12');
    expect(await page.getByText('Source from GitHub at commit ccccccc.').count()).toBe(1);
    await shoot(page, 'run-file-source');
    expect(suite.problems).toEqual({ cspViolations: [], pageErrors: [] });
  });

  it("shows an unlinked repository's file by line numbers, saying why there is no source", async () => {
    await page.goto(`${suite.origin}/dashboard/repos/plain/runs/${runs.plain}`);
    // A click on the file in the folder tree opens it too.
    await page.getByRole('treeitem', { name: /^src/ }).click();
    await page.getByRole('treeitem', { name: /^cart/ }).click();
    await page.getByRole('treeitem', { name: /^discount\.ts/ }).click();
    await page.waitForURL(/\/files\/src%2Fcart%2Fdiscount\.ts$/);
    await page
      .getByText(
        'Source not shown: the repository is not linked to a code host. Line numbers only.',
      )
      .waitFor();
    // Rows up to the last line the run names (17, changed), without a source column.
    expect(await page.locator('table.line-table tbody tr').count()).toBe(18);
    expect(await page.locator('table.line-table thead th').allTextContents()).toEqual([
      'Line',
      'Coverage',
      'Patch',
    ]);
    expect(await rowText(13)).toEqual(['13', 'missed', 'changed']);
    await shoot(page, 'run-file-numbers');
    // A file the run sent no lines for says so.
    await page.goto(
      `${suite.origin}/dashboard/repos/plain/runs/${runs.plain}/files/src%2Fcart%2Ftotal.ts`,
    );
    await page.getByTestId('file-no-lines').waitFor();
    expect(await page.getByTestId('file-no-lines').textContent()).toMatch(
      /^This run sent no line data for this file/,
    );
    expect(suite.problems).toEqual({ cspViolations: [], pageErrors: [] });
  });

  it('says on the run page and on its file that retention deleted a run’s files', async () => {
    await page.goto(`${suite.origin}/dashboard/repos/pruned/runs/${runs.pruned}`);
    await page.getByTestId('run-no-files').waitFor();
    expect(await page.getByTestId('run-no-files').textContent()).toMatch(
      /^The per-file list and line data of this run were deleted on .+ by the server’s retention setting; its figures and verdict remain\.$/,
    );
    await page.goto(
      `${suite.origin}/dashboard/repos/pruned/runs/${runs.pruned}/files/src%2Fcart%2Fdiscount.ts`,
    );
    await page.getByTestId('file-no-lines').waitFor();
    expect(await page.getByTestId('file-no-lines').textContent()).toBe(
      'The line data of this run was deleted by the server’s retention setting: covgate keeps its figures, not its lines.',
    );
    expect(suite.problems).toEqual({ cspViolations: [], pageErrors: [] });
  });
});
