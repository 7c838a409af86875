// The organisation's minimums in the dashboard: an owner sets them on the Members page, a run
// below them shows which target judged it, and a member sees them without a form.

import { join } from 'node:path';
import { DIST } from '@covgate/test-support/built-server';
import { run } from '@covgate/test-support/processes';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, navLink, shoot, skipBrowserSuite } from './support/browser.js';

describe.skipIf(skipBrowserSuite())('organisation minimums in the dashboard', () => {
  const suite = browserSuite('minimums');
  let owner: Page;
  let secret: string;
  const dashboard = (path = '') => `${suite.origin}/dashboard/${path}`;

  beforeAll(async () => {
    owner = await suite.newPage();
  });

  it('an owner sets the minimums on the Members page and sees them saved', async () => {
    await suite.signInWithBannerLink(owner);
    await navLink(owner, 'Members').click();
    await owner.getByRole('heading', { name: 'Minimums', level: 2 }).waitFor();
    expect(await owner.getByTestId('min-patch-target').textContent()).toBe('none');
    expect(await owner.getByTestId('min-project-target').textContent()).toBe('none');

    await owner.getByLabel('Lowest patch target (%)').fill('85');
    await owner.getByLabel('Lowest project target (%)').fill('70.5');
    await owner.getByRole('button', { name: 'Save minimums' }).click();
    await owner.getByText('Minimums saved: patch 85, project 70.5.').waitFor();
    expect(await owner.getByTestId('min-patch-target').textContent()).toBe('85.00%');
    expect(await owner.getByTestId('min-project-target').textContent()).toBe('70.50%');
    expect(await owner.getByLabel('Lowest patch target (%)').inputValue()).toBe('85');
    await shoot(owner, 'minimums-owner', { scrollTo: owner.getByTestId('minimums') });
  });

  it('a run whose own targets are lower is judged by the minimums, and its page says so', async () => {
    await navLink(owner, 'Tokens').click();
    await owner.getByLabel('Token name').fill('ci');
    await owner.getByRole('button', { name: 'Create token' }).click();
    secret = (await owner.getByTestId('secret').textContent()) as string;
    const posted = await suite.postRun(secret, {
      repo: 'web',
      branch: 'feature',
      coverage: 65,
      project_target: 50,
      patch: { covered: 16, coverable: 20 },
      patch_target: 80,
    });
    expect(posted.status).toBe(201);
    const { id } = (await posted.json()) as { id: string };

    await owner.goto(dashboard(`repos/web/runs/${id}`));
    await owner.getByTestId('decided-by').waitFor();
    expect(await owner.getByTestId('decided-by').textContent()).toBe(
      'the project target (70.50%, the organisation’s minimum)',
    );
    expect(await owner.getByTestId('verdict').textContent()).toBe(
      'Failed by the project target: coverage 65.00% is below the floor of 70.50% (the organisation’s minimum). There is no baseline: the base branch had no run to compare with. The patch is below its target too: 80.00% covered, target 85.00% (the organisation’s minimum).',
    );
    expect(await owner.getByTestId('patch').textContent()).toContain(
      'target 85.00%, the organisation’s minimum',
    );
    await shoot(owner, 'minimums-run');
  });

  it('a member sees the minimums, without a form to change them', async () => {
    await navLink(owner, 'Members').click();
    await owner.getByLabel('Role of the invited person').selectOption('member');
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    const inviteUrl = (await owner.getByTestId('invite-url').textContent()) as string;

    const member = await suite.newPage();
    await member.goto(inviteUrl);
    await member.getByRole('button', { name: 'Join' }).click();
    await member.getByRole('heading', { name: 'Sign in to covgate' }).waitFor();
    const made = await run(
      process.execPath,
      [join(DIST, 'admin.js'), 'login-link', 'dev', '--name', 'Mo Member'],
      { env: { PATH: process.env.PATH, COVGATE_DATA_DIR: suite.server.dataDir } },
    );
    expect(made.code, made.stderr).toBe(0);
    await member.goto(made.stdout.trim());
    await member.getByTestId('invite-joined').waitFor();

    await navLink(member, 'Members').click();
    await member.getByRole('heading', { name: 'Minimums', level: 2 }).waitFor();
    await member.getByTestId('min-patch-target').waitFor();
    expect(await member.getByTestId('min-patch-target').textContent()).toBe('85.00%');
    expect(await member.getByTestId('min-project-target').textContent()).toBe('70.50%');
    expect(await member.getByRole('button', { name: 'Save minimums' }).count()).toBe(0);
    expect(await member.getByLabel('Lowest patch target (%)').count()).toBe(0);
    expect(await member.getByText('Owners set them.').count()).toBe(1);
    await shoot(member, 'minimums-member', { scrollTo: member.getByTestId('minimums') });
  });
});
