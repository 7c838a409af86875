import {
  type FakeOAuthHost,
  startFakeGitea,
  startFakeGitlab,
} from '@covgate/test-support/fake-oauth-host';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, shoot, skipBrowserSuite } from './support/browser.js';

// Signing in to the dashboard through GitLab and through Gitea in Chromium, against the built
// reference server configured with GITLAB_* and GITEA_* and two local fakes that answer as
// GitLab's and Gitea's OAuth providers do (PKCE checked, the account from the user API).

const GITLAB_APP = { clientId: 'gitlab-browser-app', clientSecret: 'gitlab-browser-secret-9f0c' };
const GITEA_APP = { clientId: 'gitea-browser-app', clientSecret: 'gitea-browser-secret-2d7e' };
const GITLAB_ACCOUNT = { id: 4242, login: 'lab-person' };
const GITEA_ACCOUNT = { id: 31, login: 'tea-person' };
const GITLAB_MATE = { id: 4343, login: 'lab-mate' };

describe.skipIf(skipBrowserSuite())(
  'the dashboard signs in through GitLab and Gitea on the built reference server',
  () => {
    let gitlab: FakeOAuthHost;
    let gitea: FakeOAuthHost;
    beforeAll(async () => {
      [gitlab, gitea] = await Promise.all([
        startFakeGitlab({ ...GITLAB_APP, account: GITLAB_ACCOUNT }),
        startFakeGitea({ ...GITEA_APP, account: GITEA_ACCOUNT }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([gitlab?.close(), gitea?.close()]);
    });
    const suite = browserSuite('code-host-sign-in', () => ({
      GITLAB_CLIENT_ID: GITLAB_APP.clientId,
      GITLAB_CLIENT_SECRET: GITLAB_APP.clientSecret,
      GITLAB_URL: gitlab.baseUrl,
      GITEA_CLIENT_ID: GITEA_APP.clientId,
      GITEA_CLIENT_SECRET: GITEA_APP.clientSecret,
      GITEA_URL: gitea.baseUrl,
    }));
    let page: Page;
    const dashboard = () => `${suite.origin}/dashboard/`;

    async function signInWith(host: 'GitLab' | 'Gitea'): Promise<void> {
      await page.goto(dashboard());
      await page.getByRole('link', { name: `Sign in with ${host}` }).click();
      await page.waitForURL(dashboard());
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    }

    beforeAll(async () => {
      page = await suite.newPage();
    });

    it('offers a button for each configured code host, and none for GitHub', async () => {
      await page.goto(dashboard());
      await page.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
      const buttons = page.getByRole('link', { name: /^Sign in with / });
      expect(await buttons.allTextContents()).toEqual([
        'Sign in with GitLab',
        'Sign in with Gitea',
      ]);
      expect(await buttons.nth(0).getAttribute('href')).toBe(`${suite.origin}/auth/gitlab`);
      expect(await buttons.nth(1).getAttribute('href')).toBe(`${suite.origin}/auth/gitea`);
      await shoot(page, 'sign-in-gitlab-gitea');
    });

    it('signs in through GitLab to the personal organisation of the GitLab account', async () => {
      await signInWith('GitLab');
      await page.getByRole('heading', { name: 'Set up your first repository' }).waitFor();
      expect(await page.locator('.org').textContent()).toBe(`gitlab-${GITLAB_ACCOUNT.id} free`);
      expect(gitlab.requests).toEqual([
        'GET /oauth/authorize',
        'POST /oauth/token',
        'GET /api/v4/user',
      ]);
      expect(gitea.requests).toEqual([]);
      await shoot(page, 'signed-in-gitlab');
    });

    it('signs out, then in through Gitea to the personal organisation of the Gitea account', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
      await signInWith('Gitea');
      await page.getByRole('heading', { name: 'Set up your first repository' }).waitFor();
      expect(await page.locator('.org').textContent()).toBe(`gitea-${GITEA_ACCOUNT.id} free`);
      expect(gitea.requests).toEqual([
        'GET /login/oauth/authorize',
        'POST /login/oauth/access_token',
        'GET /api/v1/user',
      ]);
      await shoot(page, 'signed-in-gitea');
    });

    it("links the GitLab account's organisation to a GitLab group, whose member joins at their GitLab sign-in", async () => {
      // The Gitea account is signed in: back to the GitLab one, owner of its organisation.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
      gitlab.signInAs(GITLAB_ACCOUNT);
      await signInWith('GitLab');
      await page.getByRole('link', { name: 'Members' }).click();
      await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      await page.getByRole('combobox', { name: 'Code host' }).selectOption('gitlab');
      await page
        .getByRole('textbox', { name: 'GitLab group path', exact: true })
        .fill('Acme/Platform');
      await page.getByRole('button', { name: 'Link', exact: true }).click();
      await page
        .getByText('Linked to acme/platform: its members join at their next GitLab sign-in.')
        .waitFor();
      await page
        .getByTestId('organisation-link')
        .filter({ hasText: 'Linked to the GitLab group' })
        .waitFor();
      expect(await page.getByTestId('organisation-link').textContent()).toBe(
        'Linked to the GitLab group acme/platform: its members join as member when they sign in through GitLab, and leave at their next sign-in once they left it there.Unlink',
      );
      await shoot(page, 'members-gitlab-group-link');

      // A member of the group (on its second page of groups) signs in: they join as member.
      const filler = Array.from({ length: 100 }, (_, i) => `other-${i}`);
      gitlab.setOrganisations(GITLAB_MATE.login, [...filler, 'Acme/Platform']);
      gitlab.signInAs(GITLAB_MATE);
      const mate = await suite.newPage();
      await mate.goto(dashboard());
      await mate.getByRole('link', { name: 'Sign in with GitLab' }).click();
      await mate.waitForURL(dashboard());
      await mate.getByRole('button', { name: 'Sign out' }).waitFor();
      expect(await mate.getByRole('combobox', { name: 'Organisation' }).inputValue()).toBe(
        `gitlab-${GITLAB_ACCOUNT.id}`,
      );
      expect(await mate.getByTestId('role').textContent()).toBe('member');
      await shoot(mate, 'members-gitlab-group-joined');
      await page.reload();
      await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      await page.getByText(GITLAB_MATE.login).waitFor();
      expect(suite.server.stdout()).toMatch(
        /\[audit\] organisation\.link org_id=\S+ host=gitlab organisation=acme\/platform by=usr_\w+/,
      );
      expect(suite.server.stdout()).toMatch(
        /\[audit\] member\.add org_id=\S+ user_id=usr_\w+ role=member via=gitlab-group/,
      );
      await mate.context().close();
    });

    it('logs no access token, client secret or code of either host', () => {
      const output = suite.server.output();
      for (const token of [...gitlab.accessTokens, ...gitea.accessTokens]) {
        expect(output).not.toContain(token);
      }
      expect(output).not.toContain(GITLAB_APP.clientSecret);
      expect(output).not.toContain(GITEA_APP.clientSecret);
    });

    it('met the strict CSP and threw no error', () => {
      expect(suite.problems.cspViolations).toEqual([]);
      expect(suite.problems.pageErrors).toEqual([]);
    });
  },
);
