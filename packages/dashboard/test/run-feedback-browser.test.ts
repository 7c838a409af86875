import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSqliteStore } from '@covgate/sqlite';
import { buildExecution } from '@covgate/testing';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, json, shoot, skipBrowserSuite } from './support/browser.js';

// The run page's "Feedback" section in Chromium, against the built reference server: what
// covgate posted to the code host for a run, and why not (docs/required-checks.md, "Why
// nothing was posted").

/** The section's rows: what, the decision, what happened. */
const rowsOf = (page: Page) =>
  page
    .getByTestId('feedback')
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.children].map((cell) => cell.textContent?.trim() ?? '')),
    );

/** The dashboard's `2026-11-29 10:00 UTC` of an instant. */
const shown = (at: Date) =>
  `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 16)} UTC`;

describe.skipIf(skipBrowserSuite())('the run page says what covgate posted and why not', () => {
  const suite = browserSuite('run-feedback');
  let page: Page;
  let orgId: string;
  let secret: string;
  const runPage = (id: string) => `${suite.origin}/dashboard/repos/web/runs/${id}`;

  beforeAll(async () => {
    page = await suite.newPage();
    await suite.signInWithBannerLink(page);
    orgId = (
      (await page.evaluate(() => fetch('/v1/session').then((answer) => answer.json()))) as {
        org_id: string;
      }
    ).org_id;
    secret = (
      (await page.evaluate(
        (headers) =>
          fetch('/v1/tokens', {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: 'ci' }),
          }).then((answer) => answer.json()),
        json,
      )) as { secret: string }
    ).secret;
  });

  it('says that an unlinked repository got nothing, item by item', async () => {
    const posted = await suite.postRun(secret, {
      repo: 'web',
      branch: 'main',
      coverage: 84.13,
      commit: 'abc1234',
    });
    expect(posted.status).toBe(201);
    const { id } = (await posted.json()) as { id: string };
    await page.goto(runPage(id));
    await page.getByRole('heading', { name: 'Feedback' }).waitFor();
    expect(await page.getByTestId('feedback-summary').textContent()).toBe(
      'The repository was not linked to a code host when this run was recorded: covgate posted nothing for it. Link it on the repository’s page; the next run posts its statuses and comment.',
    );
    const notLinked = 'Not sent: the repository is not linked to a code host.';
    expect(await rowsOf(page)).toEqual([
      ['Status covgate/project', 'Not queued', notLinked],
      ['Status covgate/patch', 'Not queued', notLinked],
      ['Pull request comment', 'Not queued', notLinked],
    ]);
  });

  it('shows what each delivery did: a status set, a patch status not queued, a comment given up', async () => {
    // Due in an hour: the server's sender never claims them before this test does.
    const later = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    const at = (seconds: number) => new Date(later.getTime() + seconds * 1000);
    const run = buildExecution({
      orgId,
      repo: 'web',
      branch: 'feature/cart',
      commit: 'a'.repeat(40),
      pullRequest: 7,
      createdAt: later,
      feedback: {
        link: { host: 'github', repository: 'acme/web' },
        items: [
          { kind: 'status_project', context: 'covgate/project', skipped: null },
          { kind: 'status_patch', context: 'covgate/patch', skipped: 'no_patch' },
          { kind: 'comment', context: null, skipped: null },
        ],
      },
    });
    const store = await createSqliteStore({
      url: pathToFileURL(join(suite.server.dataDir, 'covgate.db')).href,
    });
    try {
      await store.insertExecution(run, null, [
        { id: 'dlv_feedback_status', kind: 'status_project', payload: '{}' },
        { id: 'dlv_feedback_comment', kind: 'comment', payload: '{}' },
      ]);
      const claimed = await store.claimDeliveries('browser-test', later, 60_000, 50);
      expect(claimed).toHaveLength(2);
      await store.markDeliverySent('dlv_feedback_status', 'browser-test', at(1), 'status_set');
      await store.failDelivery('dlv_feedback_comment', 'browser-test', {
        at: at(2),
        error: 'GitHub refused the token: it lacks the pull requests permission',
        status: 403,
      });
    } finally {
      await store.close();
    }
    await page.goto(runPage(run.id));
    await page.getByRole('heading', { name: 'Feedback' }).waitFor();
    expect(await page.getByTestId('feedback-summary').textContent()).toBe(
      'Feedback goes to GitHub acme/web: the commit statuses on the run’s commit, the comment on pull request #7.',
    );
    expect(await rowsOf(page)).toEqual([
      ['Status covgate/project', 'Queued', `Sent ${shown(at(1))}: status set.`],
      ['Status covgate/patch', 'Not queued', 'Not sent: the run sent no patch (pushes have none).'],
      [
        'Pull request comment',
        'Queued',
        'Given up after 1 attempt: GitHub refused the token: it lacks the pull requests permission (HTTP 403).',
      ],
    ]);
    await shoot(page, 'run-feedback', { scrollTo: page.getByTestId('feedback') });
  });

  it('met the strict CSP and threw no error', () => {
    expect(suite.problems.cspViolations).toEqual([]);
    expect(suite.problems.pageErrors).toEqual([]);
  });
});
