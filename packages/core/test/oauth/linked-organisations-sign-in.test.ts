import { type CodeHost, createPersonalOrganisationResolver } from '@covgate/core';
import { giteaCodeHost } from '@covgate/core/gitea';
import { gitlabCodeHost } from '@covgate/core/gitlab';
import {
  type FakeOAuthHost,
  startFakeGitea,
  startFakeGitlab,
} from '@covgate/test-support/fake-oauth-host';
import {
  createTestApi,
  TEST_API_ORIGIN,
  TEST_DASHBOARD_ORIGIN,
  type TestApi,
} from '@covgate/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cookiePair, setCookie } from './support/cookies.js';

// Sign-in through GitLab and through Gitea against fakes that list the account's groups and
// organisations as the real APIs do (pages, page-size ceilings, `x-next-page` and `Link`,
// the scope refusals): members of a linked group or organisation join, those no longer
// listed leave, and an answer that is not a whole list changes nothing.

const APP = { clientId: 'linked-app', clientSecret: 'linked-app-secret-4b1e' };
const ACCOUNT = { id: 5150, login: 'pat-member' };

interface HostCase {
  name: 'gitlab' | 'gitea';
  start: typeof startFakeGitlab;
  codeHost(baseUrl: string, scopes?: string[]): CodeHost;
  source: string;
  noun: string;
  /** The linked path as the host spells it, and as the link stores it. */
  path: string;
  /** How many of the account's other organisations fill the first page (the host's ceiling). */
  pageSize: number;
  pageParameter: string;
  refusedScopes: string[];
}

const CASES: HostCase[] = [
  {
    name: 'gitlab',
    start: startFakeGitlab,
    codeHost: (baseUrl, scopes) =>
      gitlabCodeHost({
        ...APP,
        redirectUri: `${TEST_API_ORIGIN}/auth/gitlab/callback`,
        baseUrl,
        ...(scopes ? { scopes } : {}),
      }),
    source: 'gitlab-group',
    noun: 'GitLab group',
    path: 'Acme/Platform.Team',
    pageSize: 100,
    pageParameter: 'per_page',
    refusedScopes: ['read_user'],
  },
  {
    name: 'gitea',
    start: startFakeGitea,
    codeHost: (baseUrl, scopes) =>
      giteaCodeHost({
        ...APP,
        redirectUri: `${TEST_API_ORIGIN}/auth/gitea/callback`,
        baseUrl,
        ...(scopes ? { scopes } : {}),
      }),
    source: 'gitea-org',
    noun: 'Gitea organisation',
    path: 'Tea-House',
    pageSize: 50,
    pageParameter: 'limit',
    refusedScopes: ['read:user'],
  },
];

describe.each(CASES)('signing in through $name with linked organisations', (hostCase) => {
  let fake: FakeOAuthHost;
  beforeAll(async () => {
    fake = await hostCase.start({ ...APP, account: ACCOUNT });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.answerOrganisationsWith(null);
    fake.organisationPages.length = 0;
  });

  const linked = hostCase.path.toLowerCase();
  /** The account's organisations: a full first page of others, the linked one on page 2. */
  const fillers = Array.from({ length: hostCase.pageSize }, (_, i) => `filler-${i}`);

  function setup(scopes?: string[]) {
    const t = createTestApi(({ store, clock }) => ({
      oauth: {
        codeHosts: { [hostCase.name]: hostCase.codeHost(fake.baseUrl, scopes) },
        dashboardUrl: `${TEST_DASHBOARD_ORIGIN}/`,
        resolveIdentity: createPersonalOrganisationResolver({ store, clock }),
      },
    }));
    return t;
  }

  async function givenLinkedOrganisations(t: TestApi) {
    const team = await t.createOrganisation();
    const other = await t.createOrganisation();
    const link = (orgId: string, organisation: string) =>
      t.store.linkOrganisation({
        orgId,
        host: hostCase.name,
        organisation,
        linkedBy: 'usr_owner',
        linkedAt: new Date('2026-02-01T00:00:00Z'),
      });
    await link(team.id, linked);
    await link(other.id, 'not-listed');
    await t.store.addMember({
      orgId: team.id,
      userId: 'usr_owner',
      role: 'owner',
      createdAt: new Date('2026-02-01T00:00:00Z'),
    });
    return { team: team.id, other: other.id };
  }

  async function signIn(t: TestApi): Promise<Response> {
    const start = await t.request(`/auth/${hostCase.name}`);
    const cookie = cookiePair(setCookie(start, 'covgate_oauth_state') as string);
    const back = await fetch(start.headers.get('location') as string, { redirect: 'manual' });
    return t.request(back.headers.get('location') as string, { headers: { cookie } });
  }

  const linkedMembers = async (t: TestApi, orgId: string) =>
    (await t.store.listMembers(orgId))
      .filter((member) => member.userId !== 'usr_owner')
      .map(({ userId, role, source }) => ({ userId, role, source }));

  it('joins a member of the linked one, found on the second page, as member with an audit line', async () => {
    const t = setup();
    const { team, other } = await givenLinkedOrganisations(t);
    fake.setOrganisations(ACCOUNT.login, [...fillers, hostCase.path]);

    const response = await signIn(t);
    expect(response.status).toBe(302);
    const [joined] = await linkedMembers(t, team);
    expect(joined).toEqual({
      userId: expect.stringMatching(/^usr_/),
      role: 'member',
      source: hostCase.source,
    });
    expect(await linkedMembers(t, other)).toEqual([]);
    // The sign-in that joined opens the organisation it joined.
    expect(t.audit.lines.filter((line) => line.includes(`org_id=${team}`))).toEqual([
      `[audit] member.add org_id=${team} user_id=${joined?.userId} role=member via=${hostCase.source}`,
      expect.stringMatching(
        new RegExp(`^\\[audit\\] session\\.create user_id=${joined?.userId} org_id=${team} `),
      ),
    ]);
    expect(fake.organisationPages).toEqual([
      { page: '1', size: String(hostCase.pageSize) },
      { page: '2', size: String(hostCase.pageSize) },
    ]);
  });

  it('removes the member at the next sign-in once the host no longer lists them', async () => {
    const t = setup();
    const { team } = await givenLinkedOrganisations(t);
    fake.setOrganisations(ACCOUNT.login, [hostCase.path]);
    await signIn(t);
    const [joined] = await linkedMembers(t, team);

    fake.setOrganisations(ACCOUNT.login, fillers.slice(0, 3));
    expect((await signIn(t)).status).toBe(302);
    expect(await linkedMembers(t, team)).toEqual([]);
    expect(t.audit.lines.filter((line) => line.includes('member.remove'))).toEqual([
      `[audit] member.remove org_id=${team} user_id=${joined?.userId} by=${hostCase.name} via=${hostCase.source}`,
    ]);
  });

  it('changes nothing when the token may not list organisations, and logs why', async () => {
    const t = setup(hostCase.refusedScopes);
    const { team } = await givenLinkedOrganisations(t);
    fake.setOrganisations(ACCOUNT.login, [hostCase.path]);

    expect((await signIn(t)).status).toBe(302);
    expect(await linkedMembers(t, team)).toEqual([]);
    const unchecked = (path: string) =>
      new RegExp(
        `^\\[oauth\\] ${hostCase.name}: the membership of usr_\\S+ in the linked ${hostCase.noun} ${path.replace('.', '\\.')} could not be checked; it stays as it was$`,
      );
    expect(
      t.logs.messages().filter((message) => message.startsWith(`[oauth] ${hostCase.name}:`)),
    ).toEqual([linked, 'not-listed'].sort().map((path) => expect.stringMatching(unchecked(path))));
  });

  it('keeps a member who joined through the link when a page is refused part way (a rate limit)', async () => {
    const t = setup();
    const { team } = await givenLinkedOrganisations(t);
    fake.setOrganisations(ACCOUNT.login, [hostCase.path]);
    await signIn(t);
    const before = await linkedMembers(t, team);

    fake.setOrganisations(ACCOUNT.login, [...fillers, 'elsewhere']);
    fake.answerOrganisationsWith(
      {
        status: 429,
        headers: { 'retry-after': '60', 'ratelimit-remaining': '0' },
        body: 'Retry later',
      },
      2,
    );
    expect((await signIn(t)).status).toBe(302);
    expect(await linkedMembers(t, team)).toEqual(before);
    expect(t.audit.lines.filter((line) => line.includes('member.remove'))).toEqual([]);
    expect(fake.organisationPages.map((page) => page.page)).toEqual(['1', '1', '2']);
  });

  it('keeps a member when a full page names no next one (paging headers dropped on the way)', async () => {
    const t = setup();
    const { team } = await givenLinkedOrganisations(t);
    fake.setOrganisations(ACCOUNT.login, [hostCase.path]);
    await signIn(t);
    const before = await linkedMembers(t, team);

    fake.setOrganisations(ACCOUNT.login, fillers);
    fake.answerOrganisationsWith({
      status: 200,
      body: fillers.map((path, id) => ({ id, name: path, full_path: path })),
    });
    expect((await signIn(t)).status).toBe(302);
    expect(await linkedMembers(t, team)).toEqual(before);
    expect(t.audit.lines.filter((line) => line.includes('member.remove'))).toEqual([]);
  });

  it('asks nothing of the organisations endpoint while no organisation is linked to the host', async () => {
    const t = setup();
    fake.setOrganisations(ACCOUNT.login, [hostCase.path]);
    expect((await signIn(t)).status).toBe(302);
    expect(fake.organisationPages).toEqual([]);
  });
});
