import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSqliteStore } from '@covgate/sqlite';
import { buildExecution } from '@covgate/testing';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, json, shoot, skipBrowserSuite } from './support/browser.js';

// The repository page's "Pull request feedback" panel in Chromium, against the built reference
// server: an owner links the repository to a GitHub repository with a token, sees the linked
// state with the token's hint only, the deliveries GitHub refused, replaces and unlinks; a
// member sees the panel without the form.

const SERVICE_TOKEN = 'repo-link-browser-service-token-0123456789';
const GITHUB_TOKEN = 'github_pat_11BROWSER0000000000000000_secretpartWXYZ';

describe.skipIf(skipBrowserSuite())(
  'the repository page links the repository to GitHub for pull request feedback',
  () => {
    const suite = browserSuite('repo-link', { SERVICE_TOKEN });
    let owner: Page;
    let member: Page;
    let orgId: string;
    const repoPage = () => `${suite.origin}/dashboard/repos/web`;
    const panel = (target: Page) => target.getByTestId('pr-feedback');
    const shootPanel = (name: string, target: Page) =>
      shoot(target, name, { scrollTo: panel(target) });

    beforeAll(async () => {
      owner = await suite.newPage();
      await suite.signInWithBannerLink(owner);
      // A run of `web`, so that its page exists, recorded with a token the owner makes.
      const session = (await owner.evaluate(() =>
        fetch('/v1/session').then((answer) => answer.json()),
      )) as { org_id: string };
      orgId = session.org_id;
      const created = (await owner.evaluate(
        (headers) =>
          fetch('/v1/tokens', {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: 'ci' }),
          }).then((answer) => answer.json()),
        json,
      )) as { secret: string };
      const ran = await suite.postRun(created.secret, {
        repo: 'web',
        branch: 'main',
        coverage: 84.13,
      });
      expect(ran.status).toBe(201);
      // A member of the same organisation, signed in with a cookie session.
      const joined = await fetch(`${suite.origin}/v1/sessions/create`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${SERVICE_TOKEN}` },
        body: JSON.stringify({ user_id: 'usr_reader', org_id: session.org_id, role: 'member' }),
      });
      expect(joined.status).toBe(201);
      member = await suite.newPage();
      await member.context().addCookies([
        {
          name: 'covgate_session',
          value: ((await joined.json()) as { token: string }).token,
          url: suite.origin,
        },
      ]);
    });

    it('shows an owner the unlinked state and the form with the permissions the token needs', async () => {
      await owner.goto(repoPage());
      await owner.getByRole('heading', { name: 'Pull request feedback' }).waitFor();
      await owner.getByTestId('repo-link').waitFor();
      expect(await owner.getByTestId('repo-link').textContent()).toBe(
        'Not linked: pull requests get no commit status or comment from covgate.',
      );
      expect(await panel(owner).locator('ul.permissions li').allTextContents()).toEqual([
        'Commit statuses: Read and write',
        'Pull requests: Read and write',
        'Metadata: Read (GitHub adds it)',
      ]);
      expect(await owner.getByRole('link', { name: 'How to set it up' }).getAttribute('href')).toBe(
        'https://github.com/covgate/covgate/blob/main/docs/guide/pull-request-feedback.md',
      );
      expect(await owner.getByLabel('Token', { exact: true }).getAttribute('type')).toBe(
        'password',
      );
      await shootPanel('repo-link-unlinked', owner);
    });

    it('says what the server refused, keeping what was typed', async () => {
      await owner
        .getByRole('textbox', { name: 'GitHub repository', exact: true })
        .fill('acme-inc/web');
      await owner.getByLabel('Token', { exact: true }).fill(GITHUB_TOKEN);
      await owner
        .getByRole('textbox', { name: 'GitHub Enterprise API URL (optional)' })
        .fill('http://ghe.example.com');
      await owner.getByRole('button', { name: 'Link repository' }).click();
      await panel(owner).getByRole('alert').waitFor();
      expect(await panel(owner).getByRole('alert').textContent()).toMatch(
        /^The server answered 400: invalid parameter: api_url \(request [^)]+\)\.$/,
      );
      expect(
        await owner.getByRole('textbox', { name: 'GitHub repository', exact: true }).inputValue(),
      ).toBe('acme-inc/web');
    });

    it('links the repository and shows the token only by its last four characters', async () => {
      await owner.getByRole('textbox', { name: 'GitHub Enterprise API URL (optional)' }).fill('');
      await owner.getByRole('button', { name: 'Link repository' }).click();
      const notice = 'Linked to acme-inc/web with the token …WXYZ. The next run sets its statuses.';
      await owner.getByText(notice).waitFor();
      await expect
        .poll(() => owner.evaluate(() => document.activeElement?.textContent))
        .toBe(notice);
      await owner.getByRole('button', { name: 'Unlink' }).waitFor();
      expect(await owner.getByTestId('repo-link').locator('p').textContent()).toMatch(
        /^Linked to acme-inc\/web with the token …WXYZ, set \S.*\. Each run with a commit sets its commit statuses there, and a pull request's run updates one comment\.$/,
      );
      expect(await panel(owner).getByRole('form').count()).toBe(0);
      expect(await owner.content()).not.toContain('secretpart');
      expect(await panel(owner).locator('p.note').textContent()).toBe(
        'No failed delivery: GitHub accepted everything sent lately.',
      );
      expect(suite.server.stdout()).toContain('repository.link org_id=');
      expect(suite.server.output()).not.toContain('secretpart');
      await shootPanel('repo-link-linked', owner);
    });

    it('lists the deliveries GitHub refused, newest first, with the reason', async () => {
      const store = await createSqliteStore({
        url: pathToFileURL(join(suite.server.dataDir, 'covgate.db')).href,
      });
      try {
        // Due in an hour: no sender of the server claims them before this test does.
        const later = new Date(Date.now() + 3_600_000);
        const run = buildExecution({
          orgId,
          repo: 'web',
          branch: 'feature',
          commit: 'a'.repeat(40),
          pullRequest: 7,
          createdAt: later,
        });
        await store.insertExecution(run, null, [
          { id: 'dlv_browser_status', kind: 'status_project', payload: '{}' },
          { id: 'dlv_browser_comment', kind: 'comment', payload: '{}' },
        ]);
        const claimed = await store.claimDeliveries('browser-test', later, 60_000, 50);
        const at = (seconds: number) => new Date(later.getTime() + seconds * 1000);
        for (const delivery of claimed) {
          const comment = delivery.kind === 'comment';
          await store.failDelivery(delivery.id, 'browser-test', {
            at: at(comment ? 2 : 1),
            error: comment
              ? 'GitHub does not know acme-inc/web, or the token cannot see it (404 Not Found)'
              : 'GitHub refused the token (401 Bad credentials)',
            status: comment ? 404 : 401,
          });
        }
      } finally {
        await store.close();
      }
      await owner.reload();
      await owner.getByTestId('delivery-failures').waitFor();
      const items = await owner.getByTestId('delivery-failures').locator('li').allTextContents();
      expect(items).toHaveLength(2);
      expect(items[0]).toMatch(
        /^Pull request comment \(HTTP 404\): GitHub does not know acme-inc\/web, or the token cannot see it \(404 Not Found\) \S/,
      );
      expect(items[1]).toMatch(
        /^Commit status covgate\/project \(HTTP 401\): GitHub refused the token \(401 Bad credentials\) \S/,
      );
      await shootPanel('repo-link-failures', owner);
    });

    it('shows a member the panel without the form', async () => {
      await member.goto(repoPage());
      await member.getByRole('heading', { name: 'Pull request feedback' }).waitFor();
      expect(await panel(member).locator('p.state').textContent()).toBe(
        'Admins and owners link this repository to a GitHub repository (or a GitLab or Gitea one), so that each run sets the commit statuses covgate/project and covgate/patch and keeps one comment on its pull request up to date.',
      );
      expect(await panel(member).getByRole('button').count()).toBe(0);
      expect(await panel(member).getByRole('textbox').count()).toBe(0);
      await shootPanel('repo-link-member', member);
    });

    it('unlinks after a confirmation (Cancel gives focus back to Unlink)', async () => {
      const unlink = owner.getByRole('button', { name: 'Unlink', exact: true });
      await unlink.click();
      await owner.getByRole('alertdialog').waitFor();
      expect(await owner.getByRole('alertdialog').locator('h2').textContent()).toBe(
        'Unlink acme-inc/web?',
      );
      await owner.getByRole('button', { name: 'Cancel' }).click();
      await owner.getByRole('alertdialog').waitFor({ state: 'detached' });
      await expect
        .poll(() => owner.evaluate(() => document.activeElement?.textContent))
        .toBe('Unlink');

      await unlink.click();
      await shootPanel('repo-link-unlink-confirm', owner);
      await owner.getByRole('alertdialog').getByRole('button', { name: 'Unlink' }).click();
      await owner.getByText('acme-inc/web is no longer linked; its token is deleted.').waitFor();
      await owner.getByTestId('repo-link').waitFor();
      expect(await owner.getByTestId('repo-link').textContent()).toBe(
        'Not linked: pull requests get no commit status or comment from covgate.',
      );
      expect(suite.server.stdout()).toContain('repository.unlink org_id=');
    });

    it('links a GitLab project in nested groups, named with its host; Gitea asks for its API URL', async () => {
      await owner.getByRole('combobox', { name: 'Code host' }).selectOption('gitea');
      const giteaUrl = owner.getByRole('textbox', { name: 'Gitea or Forgejo API URL' });
      expect(await giteaUrl.getAttribute('required')).not.toBeNull();
      expect(
        await owner.getByRole('textbox', { name: 'Gitea or Forgejo repository' }).count(),
      ).toBe(1);

      await owner.getByRole('combobox', { name: 'Code host' }).selectOption('gitlab');
      await owner
        .getByRole('textbox', { name: 'GitLab project path', exact: true })
        .fill('acme/platform/web');
      await owner.getByLabel('Token', { exact: true }).fill('glpat-browserTokenValueWXYZ');
      await shootPanel('repo-link-gitlab-form', owner);
      await owner.getByRole('button', { name: 'Link repository' }).click();
      const notice =
        'Linked to the GitLab project acme/platform/web with the token …WXYZ. The next run sets its statuses.';
      await owner.getByText(notice).waitFor();
      expect(await owner.getByTestId('repo-link').locator('p').textContent()).toMatch(
        /^Linked to the GitLab project acme\/platform\/web with the token …WXYZ, set \S.*\.( Each run)/,
      );
      expect(suite.server.stdout()).toContain(
        'host=gitlab repository=acme/platform/web api_url=https://gitlab.com/api/v4',
      );
      expect(suite.server.output()).not.toContain('glpat-browserToken');
      await shootPanel('repo-link-gitlab', owner);
    });

    it('links a Gitea or Forgejo repository at the API URL it names, in place of the GitLab link', async () => {
      await owner.getByRole('button', { name: 'Unlink', exact: true }).click();
      await owner.getByRole('alertdialog').getByRole('button', { name: 'Unlink' }).click();
      await owner
        .getByText('acme/platform/web is no longer linked; its token is deleted.')
        .waitFor();
      await owner.getByRole('combobox', { name: 'Code host' }).selectOption('gitea');
      await owner
        .getByRole('textbox', { name: 'Gitea or Forgejo repository' })
        .fill('tea-team/web');
      await owner
        .getByRole('textbox', { name: 'Gitea or Forgejo API URL' })
        .fill('https://git.example.com/api/v1/');
      await owner.getByLabel('Token', { exact: true }).fill('4e1c0ffeeGiteaBrowserTokenWXYZ');
      await shootPanel('repo-link-gitea-form', owner);
      await owner.getByRole('button', { name: 'Link repository' }).click();
      const notice =
        'Linked to the Gitea repository tea-team/web with the token …WXYZ. The next run sets its statuses.';
      await owner.getByText(notice).waitFor();
      expect(await owner.getByTestId('repo-link').locator('p').textContent()).toMatch(
        /^Linked to the Gitea repository tea-team\/web at https:\/\/git\.example\.com\/api\/v1 with the token …WXYZ, set \S.*\. Each run with a commit sets its commit statuses there, and a pull request's run updates one comment\.$/,
      );
      expect(suite.server.stdout()).toContain(
        'host=gitea repository=tea-team/web api_url=https://git.example.com/api/v1',
      );
      expect(suite.server.output()).not.toContain('GiteaBrowserToken');
      await shootPanel('repo-link-gitea', owner);
    });

    it('met the strict CSP and threw no error', () => {
      expect(suite.problems.cspViolations).toEqual([]);
      expect(suite.problems.pageErrors).toEqual([]);
    });
  },
);
