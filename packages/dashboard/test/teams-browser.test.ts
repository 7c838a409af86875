import { type FakeGithub, startFakeGithub } from '@covgate/test-support/fake-github';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, navLink, shoot, skipBrowserSuite } from './support/browser.js';

const CLIENT_ID = 'Iv1.dashboard-teams';
const CLIENT_SECRET = 'dashboard-teams-client-secret-8d21';
const TEAMMATE = { id: 880021, login: 'octo-mate' };
const COLLEAGUE = { id: 880022, login: 'octo-colleague' };
const GITHUB_ORG = 'Dev-Team';
const PERSONAL_ORG = `github-${TEAMMATE.id}`;

describe.skipIf(skipBrowserSuite())(
  'teams in the dashboard: sign-in link, invites, roles, organisations',
  () => {
    let github: FakeGithub;
    beforeAll(async () => {
      github = await startFakeGithub({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        account: TEAMMATE,
      });
    });
    afterAll(async () => {
      await github?.close();
    });
    // A first start outside production: NODE_ENV, PUBLIC_URL, ALLOWED_ORIGINS unset.
    const suite = browserSuite('teams', () => ({
      GITHUB_CLIENT_ID: CLIENT_ID,
      GITHUB_CLIENT_SECRET: CLIENT_SECRET,
      GITHUB_BASE_URL: github.baseUrl,
      GITHUB_API_BASE_URL: github.apiBaseUrl,
    }));
    let owner: Page;
    let mate: Page;
    let inviteUrl: string;

    const dashboard = (path = '') => `${suite.origin}/dashboard/${path}`;
    const repoNames = (target: Page) => target.locator('table.repos tbody tr th').allTextContents();
    // Each in a context of its own (closed with the browser): two people, two cookie jars.
    const newPage = () => suite.newPage({ clipboardAt: suite.origin });

    const focused = (target: Page) =>
      target.evaluate(() => {
        const element = document.activeElement;
        return element === document.body
          ? 'body'
          : (element?.getAttribute('aria-label') ?? element?.textContent ?? '');
      });

    beforeAll(async () => {
      owner = await newPage();
      mate = await newPage();
    });

    it('first start: the banner link signs the owner in to the development organisation', async () => {
      const link = await suite.signInWithBannerLink(owner);
      expect(link.startsWith(`${suite.origin}/auth/link?token=cvgl_`)).toBe(true);
      await owner.getByRole('heading', { name: 'Set up your first repository' }).waitFor();
      expect(await owner.locator('.org').textContent()).toBe('dev free');
      expect(await owner.getByTestId('role').textContent()).toBe('owner');
      // One organisation: no picker.
      expect(await owner.getByRole('combobox', { name: 'Organisation' }).count()).toBe(0);
      expect(await navLink(owner, 'Tokens').count()).toBe(1);
      await shoot(owner, 'teams-first-start');
      // The link was used: opening it again is the one refusal.
      const again = await mate.goto(link);
      expect(again?.status()).toBe(400);
      expect(await mate.textContent('body')).toContain('invalid or expired link');
    });

    it('the owner records a run and invites a teammate with a copied link', async () => {
      await navLink(owner, 'Tokens').click();
      await owner.getByLabel('Token name').fill('ci');
      await owner.getByRole('button', { name: 'Create token' }).click();
      const secret = (await owner.getByTestId('secret').textContent()) as string;
      const ran = await suite.postRun(secret, { repo: 'web', branch: 'main', coverage: 91.5 });
      expect(ran.status).toBe(201);

      await navLink(owner, 'Members').click();
      await owner.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      await owner.locator('table.members tbody tr').first().waitFor();
      // Named, with the id beside the name: never the raw id alone.
      expect(await owner.locator('table.members tbody tr th').allTextContents()).toEqual([
        'Administrator (you)usr_admin',
      ]);
      expect(await owner.locator('table.members tbody tr td').first().textContent()).toBe('owner');
      // The only owner has no buttons that the API would refuse.
      expect(await owner.getByRole('button', { name: /^(Leave|Change the role)/ }).count()).toBe(0);
      expect(await owner.getByText('No invites yet.').count()).toBe(1);
      await owner.getByLabel('Role of the invited person').selectOption('member');
      await owner.getByRole('button', { name: 'Create invite link' }).click();
      inviteUrl = (await owner.getByTestId('invite-url').textContent()) as string;
      expect(inviteUrl).toMatch(
        new RegExp(
          `^${suite.origin.replace(/[.:/]/g, '\\$&')}/auth/invite\\?token=cvgi_[0-9a-f]{64}$`,
        ),
      );
      await owner.getByRole('button', { name: 'Copy invite link' }).click();
      expect(await owner.evaluate(() => navigator.clipboard.readText())).toBe(inviteUrl);
      await owner.locator('table.invites tbody tr').first().waitFor();
      expect(await owner.locator('table.invites tbody tr .status').allTextContents()).toEqual([
        'pending',
      ]);
      await shoot(owner, 'teams-members-invite');
    });

    it('the teammate opens the invite, signs in through the code host and sees the team’s repositories', async () => {
      await mate.goto(inviteUrl);
      await mate.getByRole('heading', { name: 'Join Development on covgate' }).waitFor();
      // Styled (its own style sheet allowed by the page's policy): a green Join button.
      expect(
        await mate
          .getByRole('button', { name: 'Join' })
          .evaluate((b) => getComputedStyle(b).backgroundColor),
      ).toBe('rgb(31, 111, 67)');
      await shoot(mate, 'teams-invite-page');
      expect(await mate.textContent('main')).toContain(
        'You are invited to join the organisation Development (dev) as member.',
      );
      await mate.getByRole('button', { name: 'Join' }).click();
      // Not signed in: the sign-in page, which says how an invite goes on.
      await mate.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
      expect(await mate.getByText('Invited?').count()).toBe(1);
      await shoot(mate, 'teams-sign-in-invited');
      await mate.getByRole('link', { name: 'Sign in with GitHub' }).click();
      await mate.waitForURL(dashboard());
      await mate.getByRole('heading', { name: 'Repositories' }).waitFor();
      // The invite is confirmed, once: the flag is gone from the address bar.
      expect(await mate.getByTestId('invite-joined').locator('p').textContent()).toBe(
        'You joined Development (dev) as member.',
      );
      expect(mate.url()).toBe(dashboard());
      expect(await repoNames(mate)).toEqual(['web']);
      expect(await mate.getByTestId('role').textContent()).toBe('member');
      // The personal organisation too: the picker lists both, the current one chosen.
      const picker = mate.getByRole('combobox', { name: 'Organisation' });
      expect(await picker.inputValue()).toBe('dev');
      expect(await picker.locator('option').allTextContents()).toEqual([
        'Development (dev) · member',
        `${TEAMMATE.login} (${PERSONAL_ORG}) · owner`,
      ]);
      await shoot(mate, 'teams-member-repositories');
    });

    it('shows a member no token buttons, nor the token pages’ links', async () => {
      expect(await navLink(mate, 'Tokens').count()).toBe(0);
      expect(await mate.getByRole('link', { name: 'Add a repository' }).count()).toBe(0);
      await mate.goto(dashboard('tokens'));
      await mate.getByRole('heading', { name: 'API tokens' }).waitFor();
      expect(await mate.getByTestId('tokens-member').textContent()).toBe(
        'You are a member of dev: you read its repositories and runs. Its admins and owners create, rotate and revoke the API tokens CI jobs use; see who they are on the members page.',
      );
      expect(await mate.getByRole('button', { name: /Create token|Rotate|Revoke/ }).count()).toBe(
        0,
      );
      await shoot(mate, 'teams-member-tokens');
      await mate.goto(dashboard('onboarding'));
      await mate.getByTestId('onboarding-member').waitFor();
      expect(await mate.getByRole('button', { name: 'Create token' }).count()).toBe(0);
      // The members page: a list, their own Leave button, nothing an owner does.
      await navLink(mate, 'Members').click();
      await mate.locator('table.members tbody tr').nth(1).waitFor();
      expect(await mate.locator('table.members tbody tr th').allTextContents()).toEqual([
        'Administratorusr_admin',
        expect.stringMatching(/^octo-mate \(you\)usr_/),
      ]);
      expect(await mate.getByRole('button', { name: 'Create invite link' }).count()).toBe(0);
      expect(await mate.getByRole('button', { name: /^Change the role/ }).count()).toBe(0);
      expect(await mate.getByRole('button', { name: 'Leave dev' }).count()).toBe(1);
      expect(await mate.getByRole('heading', { name: 'Invites' }).count()).toBe(0);
      await shoot(mate, 'teams-member-members');
    });

    it('switches organisations without a new sign-in', async () => {
      const picker = mate.getByRole('combobox', { name: 'Organisation' });
      await picker.selectOption(PERSONAL_ORG);
      await mate.getByRole('button', { name: 'Switch' }).click();
      // Owner of the personal organisation, which has no run: the wizard, token links back.
      await mate.getByRole('heading', { name: 'Set up your first repository' }).waitFor();
      expect(mate.url()).toBe(dashboard());
      expect(await mate.getByTestId('role').textContent()).toBe('owner');
      expect(await navLink(mate, 'Tokens').count()).toBe(1);
      await mate.waitForFunction(() => document.activeElement?.id === 'main');
      await shoot(mate, 'teams-switched');
      await picker.selectOption('dev');
      await mate.getByRole('button', { name: 'Switch' }).click();
      await mate.getByRole('heading', { name: 'Repositories' }).waitFor();
      expect(await repoNames(mate)).toEqual(['web']);
      expect(await mate.getByTestId('role').textContent()).toBe('member');
    });

    it('the owner changes the teammate’s role (Escape gives focus back), then removes them: their session ends at the next request', async () => {
      await owner.reload();
      await owner.locator('table.members tbody tr').nth(1).waitFor();
      const change = owner.getByRole('button', { name: 'Change the role of octo-mate' });
      await change.click();
      await owner.getByRole('alertdialog').waitFor();
      await owner.keyboard.press('Escape');
      await owner.getByRole('alertdialog').waitFor({ state: 'detached' });
      await owner.waitForFunction(() => document.activeElement !== document.body);
      expect(await focused(owner)).toBe('Change the role of octo-mate');

      await change.click();
      await owner.getByLabel('New role').selectOption('admin');
      await shoot(owner, 'teams-change-role');
      await owner.getByRole('button', { name: 'Change role', exact: true }).click();
      await owner.getByText('octo-mate is now admin.').waitFor();
      expect(await focused(owner)).toBe('octo-mate is now admin.');
      await owner.waitForFunction(
        () =>
          document.querySelectorAll('table.members tbody tr td .role')[1]?.textContent === 'admin',
      );
      // The accepted invite says who took it.
      expect(await owner.locator('table.invites tbody tr td').first().textContent()).toBe(
        'acceptedby octo-mate',
      );
      // The admin has the tokens at their next page load.
      await mate.reload();
      await navLink(mate, 'Tokens').waitFor();
      expect(await mate.getByTestId('role').textContent()).toBe('admin');

      await owner.getByRole('button', { name: 'Remove octo-mate' }).click();
      await owner.getByRole('alertdialog').waitFor();
      await shoot(owner, 'teams-remove-member');
      await owner.getByRole('button', { name: 'Remove member' }).click();
      await owner.getByText('octo-mate was removed.').waitFor();
      await owner.waitForFunction(
        () => document.querySelectorAll('table.members tbody tr').length === 1,
      );
      // The teammate's next request: signed out.
      await navLink(mate, 'Members').click();
      await mate.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
      expect(await mate.getByText('Your session ended. Sign in again.').count()).toBe(1);
    });

    it('a member of the linked GitHub organisation joins at their GitHub sign-in, with no invite', async () => {
      // The owner links the organisation on the members page.
      expect(await owner.getByTestId('organisation-link').textContent()).toBe(
        'Not linked to an organisation on a code host. Link a GitHub or Gitea organisation or a GitLab group, and its members join as member when they sign in through that host.',
      );
      await owner
        .getByRole('textbox', { name: 'GitHub organisation', exact: true })
        .fill(GITHUB_ORG);
      await owner.getByRole('button', { name: 'Link', exact: true }).click();
      await owner
        .getByText('Linked to dev-team: its members join at their next GitHub sign-in.')
        .waitFor();
      await owner
        .getByTestId('organisation-link')
        .filter({ hasText: 'Linked to the GitHub organisation' })
        .waitFor();
      expect(await owner.getByTestId('organisation-link').textContent()).toBe(
        'Linked to the GitHub organisation dev-team: its members join as member when they sign in through GitHub, and leave at their next sign-in once they left it there.Unlink',
      );
      await shoot(owner, 'teams-github-link');
      github.setOrgMembership(GITHUB_ORG, COLLEAGUE.login, 'active');
      github.signInAs(COLLEAGUE);
      const colleague = await newPage();
      await colleague.goto(dashboard());
      await colleague.getByRole('link', { name: 'Sign in with GitHub' }).click();
      await colleague.waitForURL(dashboard());
      await colleague.getByRole('heading', { name: 'Repositories' }).waitFor();
      expect(await repoNames(colleague)).toEqual(['web']);
      expect(await colleague.getByTestId('role').textContent()).toBe('member');
      expect(await navLink(colleague, 'Tokens').count()).toBe(0);
      await shoot(colleague, 'teams-github-org-joined');
      await owner.reload();
      await owner.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      await owner.getByText('octo-colleague').waitFor();
      expect(suite.server.stdout()).toMatch(
        /\[audit\] member\.add org_id=\S+ user_id=usr_\w+ role=member via=github-org/,
      );
      await colleague.context().close();
    });

    it('the owner revokes a pending invite, whose link then gets the one refusal', async () => {
      await owner.getByRole('button', { name: 'Create invite link' }).click();
      const url = (await owner.getByTestId('invite-url').textContent()) as string;
      await owner.waitForFunction(
        () => document.querySelectorAll('table.invites tbody tr').length === 2,
      );
      // The one pending invite (the first one was accepted).
      await owner.getByRole('button', { name: /^Revoke the member invite …/ }).click();
      await owner.getByRole('button', { name: 'Revoke invite' }).click();
      await owner.getByText('The member invite was revoked.').waitFor();
      // The list reloads after the revoke: wait for its two rows, none pending (an empty
      // table while it loads has no pending row either).
      await owner.waitForFunction(
        () =>
          document.querySelectorAll('table.invites tbody tr').length === 2 &&
          document.querySelectorAll('table.invites .status-pending').length === 0,
      );
      expect(await owner.locator('table.invites tbody tr .status').allTextContents()).toEqual([
        'revoked',
        'accepted',
      ]);
      await shoot(owner, 'teams-members');
      const refused = await mate.goto(url);
      expect(refused?.status()).toBe(400);
      expect(await mate.textContent('body')).toContain('invalid or expired invite');
      expect(suite.problems.cspViolations).toEqual([]);
      expect(suite.problems.pageErrors).toEqual([]);
    });
  },
);
