import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BuiltServer,
  freePort,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { type FakeGithub, startFakeGithub } from '@covgate/test-support/fake-github';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieHeader, setCookies } from './support/cookies.js';

const built = isServerBuilt();
const CLIENT_ID = 'Iv1.e2e-org-link';
const CLIENT_SECRET = 'e2e-org-link-secret-7a3e';
const SERVICE_TOKEN = 'e2e-org-link-service-token-0123456789abcdef';
const ALICE = { id: 610001, login: 'alice-gh' };
const BOB = { id: 610002, login: 'bob-gh' };
const CAROL = { id: 610003, login: 'carol-gh' };
const GITHUB_ORG = 'Acme-Inc';
const json = { 'content-type': 'application/json' };

interface Session {
  org: string;
  role: string;
  user_id: string;
  organisations: { org: string; role: string }[];
}

describe.skipIf(!built && process.env.CI !== '1')(
  'organisations linked to a GitHub organisation, on the built reference server',
  () => {
    let github: FakeGithub;
    let server: BuiltServer;
    let dataDir: string;
    let owner: string;
    let orgId: string;
    const url = (path: string) => `${server.url}${path}`;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    /** A whole GitHub sign-in as `account`, as a browser follows it: the session token. */
    async function signIn(account: { id: number; login: string }): Promise<string> {
      github.signInAs(account);
      const started = await fetch(url('/auth/github'), { redirect: 'manual' });
      const state = setCookies(started).get('covgate_oauth_state');
      const back = await fetch(started.headers.get('location') as string, { redirect: 'manual' });
      const callback = await fetch(back.headers.get('location') as string, {
        redirect: 'manual',
        headers: { cookie: cookieHeader(state as NonNullable<typeof state>) },
      });
      expect(callback.status).toBe(302);
      return setCookies(callback).get('covgate_session')?.value as string;
    }

    const sessionOf = async (token: string) => {
      const response = await fetch(url('/v1/session'), { headers: bearer(token) });
      return [
        response.status,
        response.status === 200 ? ((await response.json()) as Session) : null,
      ] as const;
    };
    const members = async () =>
      (
        (await (await fetch(url('/v1/members'), { headers: bearer(owner) })).json()) as {
          members: { login: string | null; role: string }[];
        }
      ).members;

    beforeAll(async () => {
      github = await startFakeGithub({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        account: ALICE,
      });
      github.setOrgMembership(GITHUB_ORG, ALICE.login, 'active');
      github.setOrgMembership(GITHUB_ORG, BOB.login, 'pending');
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-org-link-'));
      const port = await freePort();
      server = await startBuiltServer({
        PATH: process.env.PATH,
        PORT: String(port),
        NODE_ENV: 'test',
        COVGATE_DATA_DIR: dataDir,
        SERVICE_TOKEN,
        GITHUB_CLIENT_ID: CLIENT_ID,
        GITHUB_CLIENT_SECRET: CLIENT_SECRET,
        GITHUB_BASE_URL: github.baseUrl,
        GITHUB_API_BASE_URL: github.apiBaseUrl,
      });
      const created = await fetch(url('/v1/organisations'), {
        method: 'POST',
        headers: { ...json, ...bearer(SERVICE_TOKEN) },
        body: JSON.stringify({ slug: 'acme', name: 'Acme' }),
      });
      orgId = ((await created.json()) as { id: string }).id;
      const session = await fetch(url('/v1/sessions/create'), {
        method: 'POST',
        headers: { ...json, ...bearer(SERVICE_TOKEN) },
        body: JSON.stringify({ user_id: 'usr_acme_owner', org_id: orgId }),
      });
      owner = ((await session.json()) as { token: string }).token;
    });

    afterAll(async () => {
      await server?.kill();
      await github?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('an owner links the organisation; the audit line names the GitHub organisation', async () => {
      const linked = await fetch(url('/v1/organisation/github-link'), {
        method: 'POST',
        headers: { ...json, ...bearer(owner) },
        body: JSON.stringify({ github_org: GITHUB_ORG }),
      });
      expect(linked.status).toBe(200);
      expect(((await linked.json()) as { github_org: string }).github_org).toBe('acme-inc');
      await server.waitForLine(/\[audit\] organisation\.link /);
      expect(server.stdout()).toContain(
        `[audit] organisation.link org_id=${orgId} github_org=acme-inc by=usr_acme_owner`,
      );
    });

    it('a member of the GitHub organisation joins as member at sign-in, asking GitHub with read:org', async () => {
      const before = github.requests.length;
      const session = await signIn(ALICE);
      const [status, body] = await sessionOf(session);
      expect(status).toBe(200);
      // The sign-in that joined opens the organisation; the personal one is kept.
      expect(body?.org).toBe('acme');
      expect(body?.role).toBe('member');
      expect(body?.organisations.map((org) => [org.org, org.role])).toEqual([
        ['acme', 'member'],
        [`github-${ALICE.id}`, 'owner'],
      ]);
      expect(github.requests.slice(before)).toEqual([
        'GET /login/oauth/authorize',
        'POST /login/oauth/access_token',
        'GET /api/v3/user',
        'GET /api/v3/user/memberships/orgs/acme-inc',
      ]);
      // Oldest first, ties by user id: both joined within one second here or not, so the
      // order is not asserted, the two members are.
      const joined = await members();
      expect(joined).toHaveLength(2);
      expect(joined).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ login: null, role: 'owner' }),
          expect.objectContaining({ login: ALICE.login, role: 'member' }),
        ]),
      );
      expect(server.stdout()).toMatch(
        new RegExp(
          `\\[audit\\] member\\.add org_id=${orgId} user_id=usr_\\w+ role=member via=github-org`,
        ),
      );
    });

    it('a pending invitation on GitHub or no membership does not join', async () => {
      for (const account of [BOB, CAROL]) {
        const [, body] = await sessionOf(await signIn(account));
        expect(body?.org, account.login).toBe(`github-${account.id}`);
        expect(body?.organisations.map((org) => org.org)).toEqual([`github-${account.id}`]);
      }
      const logins = (await members()).map((member) => member.login);
      expect(logins).toHaveLength(2);
      expect(logins).toEqual(expect.arrayContaining([null, ALICE.login]));
    });

    it('removal on GitHub takes effect at the next sign-in: the member leaves, their sessions end', async () => {
      // A later sign-in of a member lands in the personal organisation, as ever; switch.
      const earlier = await signIn(ALICE);
      expect((await sessionOf(earlier))[1]?.org).toBe(`github-${ALICE.id}`);
      const switched = await fetch(url('/v1/session/organisation'), {
        method: 'POST',
        headers: { ...json, ...bearer(earlier) },
        body: JSON.stringify({ org: 'acme' }),
      });
      expect(switched.status).toBe(200);
      github.setOrgMembership(GITHUB_ORG, ALICE.login, null);
      // Until then nothing changes.
      expect((await sessionOf(earlier))[0]).toBe(200);

      const next = await signIn(ALICE);
      const [, body] = await sessionOf(next);
      expect(body?.org).toBe(`github-${ALICE.id}`);
      expect(body?.organisations.map((org) => org.org)).toEqual([`github-${ALICE.id}`]);
      expect((await sessionOf(earlier))[0]).toBe(401);
      expect((await members()).map((member) => member.login)).toEqual([null]);
      expect(server.stdout()).toMatch(
        new RegExp(
          `\\[audit\\] member\\.remove org_id=${orgId} user_id=usr_\\w+ by=github via=github-org`,
        ),
      );
    });

    it('a member who joined by invite stays when GitHub does not list them', async () => {
      const invite = await fetch(url('/v1/invites'), {
        method: 'POST',
        headers: { ...json, ...bearer(owner) },
        body: JSON.stringify({ role: 'admin' }),
      });
      const { token } = (await invite.json()) as { token: string };
      const carol = await signIn(CAROL);
      const accepted = await fetch(url('/v1/invites/accept'), {
        method: 'POST',
        headers: { ...json, ...bearer(carol) },
        body: JSON.stringify({ token }),
      });
      expect(accepted.status).toBe(200);
      const again = await signIn(CAROL);
      const [, body] = await sessionOf(again);
      expect(body?.organisations.map((org) => [org.org, org.role])).toEqual([
        ['acme', 'admin'],
        [`github-${CAROL.id}`, 'owner'],
      ]);
    });
  },
);
