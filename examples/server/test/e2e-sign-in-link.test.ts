import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BuiltServer,
  DIST,
  freePort,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { CHROMIUM, launchChromium } from '@covgate/test-support/chromium';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../test/support/processes.js';

const built = isServerBuilt() && existsSync(join(DIST, 'admin.js'));
const browserAvailable = existsSync(CHROMIUM);
const browserRequired = process.env.COVGATE_REQUIRE_BROWSER === '1';
if (!built) {
  console.warn('[covgate] sign-in link run SKIPPED: run `pnpm build` first (`pnpm test` does)');
}
const BANNER_LINK =
  /sign in to the development organisation "dev" \(one use, 15 minutes\): (http:\/\/\S+)/;

/** `covgate-admin` with `args`, its output and exit code. */
function admin(args: string[], env: NodeJS.ProcessEnv) {
  return run(process.execPath, [join(DIST, 'admin.js'), ...args], { env });
}

/** Opens `url` as a browser navigation does (fetch would replace the `Sec-Fetch-*` headers). */
function navigate(
  url: string,
): Promise<{ status: number; location?: string; cookie?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    request(url, { headers }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          ...(response.headers.location ? { location: response.headers.location } : {}),
          ...(response.headers['set-cookie']
            ? { cookie: (response.headers['set-cookie'][0] as string).split(';')[0] as string }
            : {}),
          body,
        }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe.skipIf(!built && process.env.CI !== '1')(
  'sign-in links on the built reference server',
  () => {
    let server: BuiltServer;
    let dataDir: string;
    let env: NodeJS.ProcessEnv;
    let port: number;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-sign-in-link-'));
      port = await freePort();
      env = { PATH: process.env.PATH, PORT: String(port), COVGATE_DATA_DIR: dataDir };
      server = await startBuiltServer(env);
      // In a clone of the repository, where no covgate-admin is installed: the root's script.
      await server.waitForLine(/^more links: pnpm admin login-link dev$/, 20_000);
    });

    afterAll(async () => {
      await server?.kill();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('prints the dashboard and a link into the development organisation after the listening line', () => {
      const lines = server.stdout().split('\n');
      const listening = lines.findIndex((line) => line.startsWith('covgate listening on'));
      expect(lines[listening + 1]).toBe(`dashboard: http://localhost:${port}/dashboard/`);
      expect(lines).toContainEqual(
        expect.stringMatching(/^\[audit\] organisation\.create org_id=org_[0-9a-z]{26} slug=dev$/),
      );
      const link = BANNER_LINK.exec(server.stdout())?.[1];
      expect(link).toMatch(
        new RegExp(`^http://localhost:${port}/auth/link\\?token=cvgl_[0-9a-f]{64}$`),
      );
      expect(lines).toContain('more links: pnpm admin login-link dev');
    });

    describe.skipIf(!browserAvailable && !browserRequired)('in Chromium', () => {
      let browser: Browser;
      beforeAll(async () => {
        browser = await launchChromium();
      });
      afterAll(async () => {
        await browser?.close();
      });

      it('opens the dashboard signed in with one click on the banner link, once', async () => {
        const link = BANNER_LINK.exec(server.stdout())?.[1] as string;
        const page = await (await browser.newContext()).newPage();

        await page.goto(link);

        await page.waitForURL(`http://localhost:${port}/dashboard/`);
        const session = await page.request.get(`http://localhost:${port}/v1/session`);
        expect(session.status()).toBe(200);
        expect(await session.json()).toMatchObject({ user_id: 'usr_admin', org: 'dev' });
        expect(server.stdout()).toMatch(
          /^\[audit\] session\.create user_id=usr_admin org_id=org_[0-9a-z]{26} session_id=ses_[0-9a-z]{26} method=link$/m,
        );

        const again = await (await browser.newContext()).newPage();
        const refused = await again.goto(link);
        expect(refused?.status()).toBe(400);
        expect(await refused?.json()).toEqual({ error: 'invalid or expired link' });
      });
      it('takes an invited person from the invite link, through a sign-in link, into the team', async () => {
        const origin = `http://localhost:${port}`;
        const ownerLink = await admin(['login-link', 'dev', '--user', 'usr_admin'], env);
        const owner = await (await browser.newContext()).newPage();
        await owner.goto(ownerLink.stdout.trim());
        await owner.waitForURL(`${origin}/dashboard/`);
        const created = await owner.request.post(`${origin}/v1/invites`, {
          headers: { origin, 'content-type': 'application/json' },
          data: { role: 'admin' },
        });
        expect(created.status()).toBe(201);
        const invite = (await created.json()) as { url: string };
        expect(invite.url).toMatch(new RegExp(`^${origin}/auth/invite\\?token=cvgi_[0-9a-f]{64}$`));

        const guest = await (await browser.newContext()).newPage();
        await guest.goto(invite.url);
        await guest
          .getByText('You are invited to join the organisation Development (dev) as admin.')
          .waitFor();
        await guest.getByRole('button', { name: 'Join' }).click();
        await guest.waitForURL(`${origin}/dashboard/`);
        // What the sign-in page advises: a link of their own, made for a new person.
        const signIn = await admin(['login-link', 'dev', '--name', 'Bea Guest'], env);
        expect(signIn.code, signIn.stderr).toBe(0);
        const guestId = /\((usr_[0-9a-z]{26})\)/.exec(signIn.stderr)?.[1] as string;
        await guest.goto(signIn.stdout.trim());
        await guest.waitForURL(`${origin}/dashboard/`);

        const session = await guest.request.get(`${origin}/v1/session`);
        expect(await session.json()).toMatchObject({ user_id: guestId, org: 'dev', role: 'admin' });
        expect(server.stdout()).toMatch(
          new RegExp(
            `^\\[audit\\] invite\\.accept org_id=org_[0-9a-z]{26} invite_id=inv_[0-9a-z]{26} user_id=${guestId}$`,
            'm',
          ),
        );
        const members = await owner.request.get(`${origin}/v1/members`);
        expect(
          ((await members.json()) as { members: { user_id: string; login: string | null }[] })
            .members,
        ).toContainEqual(
          expect.objectContaining({ user_id: guestId, login: 'Bea Guest', role: 'admin' }),
        );
        const invites = await owner.request.get(`${origin}/v1/invites`);
        expect(((await invites.json()) as { invites: { status: string }[] }).invites).toEqual([
          expect.objectContaining({ status: 'accepted', accepted_by: guestId }),
        ]);
      });
    });

    it('covgate-admin login-link without --user makes a link for a new member, never the admin, on the address the server recorded', async () => {
      // Neither PORT nor PUBLIC_URL here: the address is the one the server recorded at start.
      const made = await admin(['login-link', 'dev', '--name', 'Ada Lovelace'], {
        PATH: process.env.PATH,
        COVGATE_DATA_DIR: dataDir,
      });
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toMatch(
        new RegExp(`^http://localhost:${port}/auth/link\\?token=cvgl_[0-9a-f]{64}\\n$`),
      );
      const userId = /\((usr_[0-9a-z]{26})\)/.exec(made.stderr)?.[1] as string;
      expect(made.stderr).toBe(
        [
          `covgate-admin: sign-in link for a new person, "Ada Lovelace", (${userId}) joining dev as member (or the role of the invite they opened), usable once until ${/until (\S+):/.exec(made.stderr)?.[1]}:`,
          'covgate-admin: it signs whoever opens it in as that new person; for yourself: --user usr_admin',
          `covgate-admin: built on http://localhost:${port}: recorded by the server at its start in ${join(dataDir, 'public-url')}`,
          '',
        ].join('\n'),
      );
      const first = await navigate(made.stdout.trim());
      expect(first.status).toBe(303);
      const session = await fetch(`${server.url}/v1/session`, {
        headers: { cookie: first.cookie as string },
      });
      expect(await session.json()).toMatchObject({ user_id: userId, org: 'dev', role: 'member' });
      expect(server.stdout()).toMatch(
        new RegExp(
          `^\\[audit\\] member\\.add org_id=org_[0-9a-z]{26} user_id=${userId} role=member$`,
          'm',
        ),
      );
    });

    it('covgate-admin bootstrap names the address the server recorded in its next step', async () => {
      const made = await admin(['bootstrap', 'shop'], {
        PATH: process.env.PATH,
        COVGATE_DATA_DIR: dataDir,
      });
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain(
        [
          `Next: create an API token (the server's address: recorded by the server at its start in ${join(dataDir, 'public-url')})`,
          `  curl -s -X POST http://localhost:${port}/v1/tokens -H "Authorization: Bearer $COVGATE_SESSION" -H 'Content-Type: application/json' -d '{"name":"ci"}'`,
          '',
        ].join('\n'),
      );
    });

    it('covgate-admin login-link prints a link alone on stdout that signs in once, joining with --role', async () => {
      const made = await admin(['login-link', 'dev', '--user', 'usr_ops', '--role', 'member'], env);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toMatch(
        new RegExp(`^http://localhost:${port}/auth/link\\?token=cvgl_[0-9a-f]{64}\\n$`),
      );
      expect(made.stderr).toMatch(
        new RegExp(
          `^covgate-admin: sign-in link for usr_ops in dev, usable once until \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ:\\ncovgate-admin: built on http://localhost:${port}: recorded by the server at its start in .*public-url\\n$`,
        ),
      );

      const first = await navigate(made.stdout.trim());
      expect(first.status).toBe(303);
      expect(first.location).toBe(`http://localhost:${port}/dashboard/`);
      const session = await fetch(`${server.url}/v1/session`, {
        headers: { cookie: first.cookie as string },
      });
      expect(await session.json()).toMatchObject({
        user_id: 'usr_ops',
        org: 'dev',
        role: 'member',
      });
      expect(server.stdout()).toMatch(
        /^\[audit\] member\.add org_id=org_[0-9a-z]{26} user_id=usr_ops role=member$/m,
      );
      const second = await navigate(made.stdout.trim());
      expect([second.status, JSON.parse(second.body)]).toEqual([
        400,
        { error: 'invalid or expired link' },
      ]);
    });

    it('covgate-admin login-link refuses an unknown organisation and bad usage with exit code 2', async () => {
      const unknown = await admin(['login-link', 'acme'], env);
      expect(unknown).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'covgate-admin: no organisation "acme": create it first with covgate-admin bootstrap acme\n',
      });
      const plan = await admin(['login-link', 'dev', '--plan', 'team'], env);
      expect([plan.code, plan.stderr]).toEqual([
        2,
        'covgate-admin: --plan is an option of bootstrap only\n',
      ]);
      const role = await admin(['login-link', 'dev', '--role', 'viewer'], env);
      expect([role.code, role.stdout, role.stderr]).toEqual([
        2,
        '',
        'covgate-admin: --role must be owner, admin or member\n',
      ]);
      const bootstrapRole = await admin(['bootstrap', 'dev', '--role', 'admin'], env);
      expect([bootstrapRole.code, bootstrapRole.stderr]).toEqual([
        2,
        'covgate-admin: --role is an option of login-link only\n',
      ]);
      const named = await admin(['login-link', 'dev', '--user', 'usr_ops', '--name', 'Ops'], env);
      expect([named.code, named.stdout, named.stderr]).toEqual([
        2,
        '',
        'covgate-admin: --name is for a new person: login-link without --user\n',
      ]);
      const control = await admin(['login-link', 'dev', '--name', 'a\tb'], env);
      expect([control.code, control.stdout, control.stderr]).toEqual([
        2,
        '',
        'covgate-admin: --name must be 1-64 printable characters\n',
      ]);
      const missing = await admin(['login-link'], env);
      expect(missing.code).toBe(2);
      expect(missing.stdout).toMatch(/^usage: covgate-admin bootstrap/);
    });
  },
);

describe.skipIf(!built && process.env.CI !== '1')('a production reference server', () => {
  it('prints the dashboard but no sign-in link, and makes no development organisation', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'covgate-sign-in-link-prod-'));
    const server = await startBuiltServer({
      PATH: process.env.PATH,
      PORT: '0',
      NODE_ENV: 'production',
      COVGATE_ALLOW_EMBEDDED_STORE: '1',
      SERVICE_TOKEN: 's'.repeat(32),
      SESSION_SECRET: 'x'.repeat(32),
      PUBLIC_URL: 'https://covgate.example.com',
      COVGATE_DATA_DIR: dataDir,
    });
    try {
      await server.waitForLine(/"msg":"dashboard: https:\/\/covgate\.example\.com\/dashboard\/"/);
      // The banner is written before the server reads requests: a health check after it
      // proves nothing more was coming.
      await fetch(`${server.url}/health`);
      expect(server.stdout()).not.toMatch(/sign in to|organisation\.create|cvgl_/);
    } finally {
      await server.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
