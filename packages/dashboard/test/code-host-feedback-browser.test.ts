import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeHostKind } from '@covgate/core';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import { createSqliteStore } from '@covgate/sqlite';
import {
  type FakeGiteaRest,
  type FakeGitlabRest,
  startFakeGiteaRest,
  startFakeGitlabRest,
} from '@covgate/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, json, shoot, skipBrowserSuite } from './support/browser.js';

// Pull request feedback to GitLab and to Gitea, seen on the repository page in Chromium: the
// built reference server sends a run's statuses and note to a local GitLab that accepts the
// token, and shows the reason a local Gitea refused its token with. Both fakes answer as the
// hosts' APIs document. The links are written to the store directly: the link form takes
// https API URLs only, and the fakes listen on plain http.

const SESSION_SECRET = 'code-host-feedback-browser-secret-0123456789';
const GOOD_TOKEN = 'glpat-feedbackBrowserGood0123';
const REVOKED_TOKEN = 'revoked-gitea-token-0123456789';
const SHA = 'c'.repeat(40);

describe.skipIf(skipBrowserSuite())(
  'the repository page shows what GitLab and Gitea made of the feedback',
  () => {
    let gitlab: FakeGitlabRest;
    let gitea: FakeGiteaRest;
    beforeAll(async () => {
      [gitlab, gitea] = await Promise.all([startFakeGitlabRest(), startFakeGiteaRest()]);
      gitlab.allowToken(GOOD_TOKEN, ['acme/platform/web']);
      gitea.allowToken('some-other-token', ['tea-team/web']);
    });
    afterAll(async () => {
      await Promise.all([gitlab?.close(), gitea?.close()]);
    });
    const suite = browserSuite('code-host-feedback', {
      SESSION_SECRET,
      ALLOW_PRIVATE_CODE_HOSTS: '1',
      OUTBOX_POLL_SECONDS: '1',
    });
    let page: Page;
    let secret: string;
    const panel = () => page.getByTestId('pr-feedback');

    async function link(
      orgId: string,
      repo: string,
      host: CodeHostKind,
      target: {
        repository: string;
        apiUrl: string;
        token: string;
      },
    ): Promise<void> {
      const store = await createSqliteStore({
        url: pathToFileURL(join(suite.server.dataDir, 'covgate.db')).href,
      });
      try {
        const now = new Date();
        await store.putRepositoryLink({
          orgId,
          repo,
          host,
          repository: target.repository,
          apiUrl: target.apiUrl,
          credential: encryptCredential(
            target.token,
            repositoryLinkCredentialContext(orgId, repo),
            {
              sessionSecret: SESSION_SECRET,
            },
          ),
          credentialHint: `…${target.token.slice(-4)}`,
          createdBy: 'usr_feedback_browser',
          createdAt: now,
          updatedAt: now,
        });
      } finally {
        await store.close();
      }
    }

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
      secret = created.secret;
      await link(session.org_id, 'lab', 'gitlab', {
        repository: 'acme/platform/web',
        apiUrl: gitlab.apiUrl,
        token: GOOD_TOKEN,
      });
      await link(session.org_id, 'tea', 'gitea', {
        repository: 'tea-team/web',
        apiUrl: gitea.apiUrl,
        token: REVOKED_TOKEN,
      });
      for (const repo of ['lab', 'tea']) {
        const ran = await suite.postRun(secret, {
          repo,
          branch: 'feature',
          base_branch: 'main',
          coverage: 84.13,
          commit: SHA,
          pull_request: 7,
          patch: { covered: 21, coverable: 23 },
        });
        expect(ran.status).toBe(201);
      }
    });

    it("sets GitLab's commit statuses and one merge request note, and says GitLab accepted everything", async () => {
      await expect
        .poll(() => gitlab.statuses.map((status) => `${status.name} ${status.state}`).sort(), {
          timeout: 30_000,
          interval: 250,
        })
        .toEqual(['covgate/patch success', 'covgate/project success']);
      await expect
        .poll(() => gitlab.notesOf('acme/platform/web', 7).length, { timeout: 30_000 })
        .toBe(1);
      expect(gitlab.statuses.every((status) => status.sha === SHA)).toBe(true);
      await page.goto(`${suite.origin}/dashboard/repos/lab`);
      await panel().getByTestId('repo-link').waitFor();
      expect(await page.getByTestId('repo-link').locator('p').textContent()).toMatch(
        new RegExp(
          `^Linked to the GitLab project acme/platform/web at ${gitlab.apiUrl.replaceAll('.', '\\.')} with the token …0123, set \\S`,
        ),
      );
      expect(await panel().locator('p.note').textContent()).toBe(
        'No failed delivery: GitLab accepted everything sent lately.',
      );
      await shoot(page, 'feedback-gitlab-delivered', { scrollTo: panel() });
    });

    it('shows the reason Gitea refused the token with, at once and without retrying', async () => {
      await page.goto(`${suite.origin}/dashboard/repos/tea`);
      await expect
        .poll(
          async () => {
            await page.reload();
            await panel().getByTestId('repo-link').waitFor();
            return page.getByTestId('delivery-failures').locator('li').allTextContents();
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toHaveLength(3);
      const items = await page.getByTestId('delivery-failures').locator('li').allTextContents();
      for (const item of items) {
        expect(item).toMatch(
          /\(HTTP 401\): Gitea refused the token \(401\): user does not exist \[uid: 0, name: \] \S/,
        );
      }
      expect(gitea.statuses).toEqual([]);
      expect(suite.server.output()).not.toContain(REVOKED_TOKEN);
      expect(suite.server.output()).not.toContain(GOOD_TOKEN);
      await shoot(page, 'feedback-gitea-refused', { scrollTo: panel() });
    });

    it('met the strict CSP and threw no error', () => {
      expect(suite.problems.cspViolations).toEqual([]);
      expect(suite.problems.pageErrors).toEqual([]);
    });
  },
);
