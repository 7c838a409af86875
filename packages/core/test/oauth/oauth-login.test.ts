import { createHash } from 'node:crypto';
import { createPersonalOrganisationResolver, type OAuthOptions } from '@covgate/core';
import { githubCodeHost } from '@covgate/core/github';
import {
  createTestApi,
  TEST_API_ORIGIN,
  TEST_DASHBOARD_ORIGIN,
  TEST_SESSION_SECRET,
  type TestApi,
  type TestApiOptions,
} from '@covgate/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cookiePair, setCookie } from './support/cookies.js';
import {
  ACCOUNT,
  CLIENT_ID,
  CLIENT_SECRET,
  type FakeCodeHost,
  LEAK_MARKER,
  startFakeCodeHost,
} from './support/fake-code-host.js';

const STATE_COOKIE = 'covgate_oauth_state';
const REDIRECT_URI = `${TEST_API_ORIGIN}/auth/github/callback`;
const DASHBOARD_URL = `${TEST_DASHBOARD_ORIGIN}/welcome`;

let host: FakeCodeHost;
beforeAll(async () => {
  host = await startFakeCodeHost();
});
afterAll(async () => {
  await host.close();
});
beforeEach(() => {
  host.tokenMode = 'ok';
  host.userMode = 'ok';
  host.authorizeError = null;
});

function github(
  overrides: { tokenUrl?: string; redirectUri?: string; organisationLinks?: boolean } = {},
) {
  return githubCodeHost({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: overrides.redirectUri ?? REDIRECT_URI,
    authorizeUrl: host.authorizeUrl,
    tokenUrl: overrides.tokenUrl ?? host.tokenUrl,
    apiBaseUrl: host.apiBaseUrl,
    ...(overrides.organisationLinks === undefined
      ? {}
      : { organisationLinks: overrides.organisationLinks }),
  });
}

function setup(oauth: Partial<OAuthOptions> = {}, more: TestApiOptions = {}) {
  return createTestApi(({ store, clock }) => ({
    oauth: {
      codeHosts: { github: github() },
      dashboardUrl: DASHBOARD_URL,
      resolveIdentity: createPersonalOrganisationResolver({ store, clock }),
      // The default budget (10 s): a loaded machine can take more than a short budget to
      // answer from the fake code host. The timeout tests set their own short budget.
      ...oauth,
    },
    ...more,
  }));
}

/** `GET /auth/{codeHost}`: the state cookie (as a `Cookie` pair) and the authorize URL. */
async function begin(t: TestApi, codeHost = 'github') {
  const response = await t.request(`/auth/${codeHost}`);
  const stateCookie = setCookie(response, STATE_COOKIE);
  if (response.status !== 302 || !stateCookie) throw new Error(`begin: ${response.status}`);
  return {
    response,
    cookie: cookiePair(stateCookie),
    location: new URL(response.headers.get('location')!),
  };
}

/** Follows the authorize URL on the fake code host; returns the callback URL it redirects to. */
async function authorize(location: URL): Promise<URL> {
  const response = await fetch(location, { redirect: 'manual' });
  return new URL(response.headers.get('location')!);
}

/** A started login whose browser is back at the callback URL, not yet requested. */
async function returnFromCodeHost(t: TestApi) {
  const started = await begin(t);
  return { cookie: started.cookie, callbackUrl: await authorize(started.location) };
}

function callback(t: TestApi, url: URL | string, cookie?: string): Promise<Response> {
  return t.request(String(url), cookie === undefined ? undefined : { headers: { cookie } });
}

function withParams(url: URL, changes: Record<string, string | string[] | null>): URL {
  const copy = new URL(url);
  for (const [name, value] of Object.entries(changes)) {
    copy.searchParams.delete(name);
    for (const item of value === null ? [] : [value].flat()) copy.searchParams.append(name, item);
  }
  return copy;
}

function expectStateCookieCleared(response: Response): void {
  const cleared = setCookie(response, STATE_COOKIE);
  expect(cleared).toBeDefined();
  expect(cleared).toMatch(/^covgate_oauth_state=;/);
  expect(cleared).toContain('Max-Age=0');
  expect(cleared).toContain('Path=/auth');
}

async function expectError(response: Response, status: number, error: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.json()).toEqual({ error });
  expectStateCookieCleared(response);
}

describe('GET /auth/{code_host}', () => {
  it('redirects to the code host with client id, redirect URI, state, S256 challenge, read:user and read:org', async () => {
    const t = setup();
    const { response, location } = await begin(t);
    expect(response.status).toBe(302);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(`${location.origin}${location.pathname}`).toBe(host.authorizeUrl);
    const params = location.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(CLIENT_ID);
    expect(params.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(params.get('scope')).toBe('read:user read:org');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.toString()).not.toContain(CLIENT_SECRET);
  });

  it('stores the state in an HttpOnly, SameSite=Lax cookie on /auth for 600 s', async () => {
    const t = setup();
    const { response, location } = await begin(t);
    const cookie = setCookie(response, STATE_COOKIE)!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/auth');
    expect(cookie).toContain('Max-Age=600');
    expect(cookie).not.toContain('Secure');
    expect(cookiePair(cookie)).toContain(location.searchParams.get('state')!);
  });

  it('marks the state cookie Secure when cookies are secure', async () => {
    const t = setup({}, { secureCookies: true });
    const cookie = setCookie((await begin(t)).response, STATE_COOKIE)!;
    expect(cookie).toContain('Secure');
  });

  it('draws a fresh state and a fresh verifier for every login', async () => {
    const t = setup();
    const first = await begin(t);
    const second = await begin(t);
    expect(first.location.searchParams.get('state')).not.toBe(
      second.location.searchParams.get('state'),
    );
    expect(first.location.searchParams.get('code_challenge')).not.toBe(
      second.location.searchParams.get('code_challenge'),
    );
  });

  it('sends a challenge that is the S256 hash of the verifier kept in the cookie', async () => {
    const t = setup();
    const { cookie, location } = await begin(t);
    const verifier = decodeURIComponent(cookie.slice(`${STATE_COOKIE}=`.length)).split('.')[1]!;
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(
      location.searchParams.get('code_challenge'),
    );
  });

  it('answers an unknown code host with 404', async () => {
    const t = setup();
    const response = await t.request('/auth/gitlab');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not found' });
    expect(setCookie(response, STATE_COOKIE)).toBeUndefined();
  });

  it('answers 501 not implemented on both routes when OAuth is not configured', async () => {
    const t = createTestApi();
    for (const path of ['/auth/github', '/auth/github/callback?code=x&state=y']) {
      const response = await t.request(path);
      expect(response.status).toBe(501);
      expect(await response.json()).toEqual({ error: 'not implemented' });
    }
  });
});

describe('GET /auth/{code_host}/callback', () => {
  it('signs in: session cookie, 302 to the dashboard, state cookie cleared, audit line', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    expect(callbackUrl.toString().startsWith(REDIRECT_URI)).toBe(true);
    const response = await callback(t, callbackUrl, cookie);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(DASHBOARD_URL);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectStateCookieCleared(response);
    const session = setCookie(response, 'covgate_session')!;
    expect(session).toMatch(/^covgate_session=cvgs_[0-9a-f]{64};/);
    expect(session).toContain('HttpOnly');
    expect(session).toContain('SameSite=Lax');
    expect(session).toContain('Path=/;');
    expect(session).toContain(`Max-Age=${24 * 60 * 60}`);
    expect(t.audit.lines).toHaveLength(2);
    const [added, created] = t.audit.lines as [string, string];
    const member =
      /^\[audit\] member\.add org_id=(org_[0-9a-z]{26}) user_id=(usr_[0-9a-z]{26}) role=owner$/.exec(
        added,
      );
    expect(member).not.toBeNull();
    const [, orgId, userId] = member as RegExpExecArray;
    expect(created).toMatch(
      new RegExp(
        `^\\[audit\\] session\\.create user_id=${userId} org_id=${orgId} session_id=ses_[0-9a-z]{26}$`,
      ),
    );
  });

  it('accepts an invite opened before signing in: the session acts for its organisation', async () => {
    const t = setup();
    const team = await t.createOrganisation('team');
    const owner = await t.createSession(team, 'usr_team_owner');
    const created = await t.request('/v1/invites', {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'admin' }),
    });
    const { token: invite } = (await created.json()) as { token: string };
    const pending = await t.request('/auth/invite', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${invite}`,
    });
    const inviteCookie = cookiePair(setCookie(pending, 'covgate_invite')!);
    const { cookie, callbackUrl } = await returnFromCodeHost(t);

    const response = await callback(t, callbackUrl, `${cookie}; ${inviteCookie}`);

    expect(response.status).toBe(302);
    // The dashboard says "You joined ... as ...".
    expect(response.headers.get('location')).toBe(`${DASHBOARD_URL}?invite=joined`);
    expect(setCookie(response, 'covgate_invite')).toMatch(
      /^covgate_invite=; Max-Age=0; Path=\/auth;/,
    );
    const session = cookiePair(setCookie(response, 'covgate_session')!);
    const current = (await (
      await t.request('/v1/session', { headers: { cookie: session } })
    ).json()) as {
      org: string;
      role: string;
      organisations: { org: string; role: string }[];
    };
    expect([current.org, current.role]).toEqual([team.slug, 'admin']);
    expect(current.organisations.map((o) => [o.org, o.role]).sort()).toEqual(
      [
        [team.slug, 'admin'],
        [`github-${ACCOUNT.id}`, 'owner'],
      ].sort(),
    );
  });

  it('gives a session cookie that authenticates the dashboard on GET /v1/tokens', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const session = cookiePair(
      setCookie(await callback(t, callbackUrl, cookie), 'covgate_session')!,
    );
    const response = await t.request('/v1/tokens', { headers: { cookie: session } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ tokens: [] });
  });

  it('sets __Host-covgate_session, Secure on Path=/, when cookies are secure', async () => {
    const t = setup({}, { secureCookies: true });
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const response = await callback(t, callbackUrl, cookie);
    expect(response.status).toBe(302);
    const session = setCookie(response, '__Host-covgate_session')!;
    expect(session).toMatch(/^__Host-covgate_session=cvgs_[0-9a-f]{64};/);
    expect(session).toContain('Secure');
    expect(session).toContain('Path=/;');
    expect(session).not.toContain('Domain');
    expect(setCookie(response, STATE_COOKIE)).toContain('Secure');
    const tokens = await t.request('/v1/tokens', { headers: { cookie: cookiePair(session) } });
    expect(tokens.status).toBe(200);
  });

  it('signs a returning account in to the same user and personal organisation', async () => {
    const t = setup();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { cookie, callbackUrl } = await returnFromCodeHost(t);
      expect((await callback(t, callbackUrl, cookie)).status).toBe(302);
      const created = t.audit.lines.filter((line) => line.includes('session.create'))[i];
      ids.push(/user_id=(\S+) org_id=(\S+)/.exec(created!)!.slice(1).join(' '));
    }
    expect(ids[0]).toBe(ids[1]);
    // The account joined its personal organisation once, as its owner.
    expect(t.audit.lines.filter((line) => line.startsWith('[audit] member.add'))).toEqual([
      `[audit] member.add org_id=${ids[0]!.split(' ')[1]} user_id=${ids[0]!.split(' ')[0]} role=owner`,
    ]);
    const org = await t.store.findOrganisationBySlug(`github-${ACCOUNT.id}`);
    expect(org).toMatchObject({ name: ACCOUNT.login, plan: 'free' });
  });

  it('never joins an organisation that only carries the account’s slug: a personal one linked by id instead', async () => {
    const t = setup();
    // Made before this release, when nothing reserved the prefix (inserted directly).
    const squatter = {
      id: 'org_01jsquatter0000000000000000',
      slug: `github-${ACCOUNT.id}`,
      name: 'Squatter',
      plan: 'enterprise' as const,
      createdAt: new Date('2026-01-01T00:00:00Z'),
    };
    await t.store.createOrganisation(squatter);

    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { cookie, callbackUrl } = await returnFromCodeHost(t);
      const response = await callback(t, callbackUrl, cookie);
      expect(response.status).toBe(302);
      sessions.push(cookiePair(setCookie(response, 'covgate_session')!));
    }
    const read = async (session: string) =>
      (await (await t.request('/v1/session', { headers: { cookie: session } })).json()) as Record<
        string,
        unknown
      >;
    const first = await read(sessions[0]!);
    const second = await read(sessions[1]!);

    expect(first.org_id).not.toBe(squatter.id);
    expect(first.org).toMatch(new RegExp(`^github-${ACCOUNT.id}-[0-9a-z]{8}$`));
    expect(first.plan).toBe('free');
    expect([second.user_id, second.org_id, second.org]).toEqual([
      first.user_id,
      first.org_id,
      first.org,
    ]);
    expect(await t.store.findPersonalOrganisation(first.user_id as string)).toMatchObject({
      id: first.org_id,
      name: ACCOUNT.login,
    });
    expect(await t.store.findOrganisationBySlug(squatter.slug)).toEqual(squatter);
  });

  it('finishes a login begun before a SESSION_SECRET rotation while the old secret is the previous one', async () => {
    const NEW_SECRET = 'rotated-session-secret-abcdef0123456789abcdef';
    const { cookie, callbackUrl } = await returnFromCodeHost(setup());
    const dropped = setup({}, { sessionSecret: NEW_SECRET });
    await expectError(await callback(dropped, callbackUrl, cookie), 400, 'invalid state');

    const rotating = setup(
      {},
      { sessionSecret: NEW_SECRET, previousSessionSecret: TEST_SESSION_SECRET },
    );
    const response = await callback(rotating, callbackUrl, cookie);

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(DASHBOARD_URL);
  });

  it('answers HEAD with 405 and uses nothing: no code exchange, the state cookie kept, the GET after it signs in', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const exchanges = () => host.requests.filter((path) => path.endsWith('/access_token')).length;
    const before = exchanges();

    const head = await t.request(String(callbackUrl), { method: 'HEAD', headers: { cookie } });

    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET, OPTIONS');
    expect(head.headers.getSetCookie()).toEqual([]);
    expect(exchanges()).toBe(before);
    expect(t.audit.lines).toEqual([]);
    const response = await callback(t, callbackUrl, cookie);
    expect(response.status).toBe(302);
    expect(setCookie(response, 'covgate_session')).toMatch(/^covgate_session=cvgs_[0-9a-f]{64};/);
  });

  it('refuses a replayed state cookie and state pair with 400 invalid state', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    expect((await callback(t, callbackUrl, cookie)).status).toBe(302);
    const exchanges = host.requests.filter((path) => path.endsWith('/access_token')).length;
    await expectError(await callback(t, callbackUrl, cookie), 400, 'invalid state');
    expect(host.requests.filter((path) => path.endsWith('/access_token'))).toHaveLength(exchanges);
  });

  it('lets only one of two concurrent callbacks with the same state through', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const statuses = (
      await Promise.all([callback(t, callbackUrl, cookie), callback(t, callbackUrl, cookie)])
    ).map((response) => response.status);
    expect(statuses.sort()).toEqual([302, 400]);
  });

  it('refuses a callback without the state cookie', async () => {
    const t = setup();
    const { callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl), 400, 'invalid state');
    await expectError(await callback(t, callbackUrl, 'other=1'), 400, 'invalid state');
  });

  it('refuses a state that does not match the cookie, whatever its shape', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const state = callbackUrl.searchParams.get('state')!;
    const other = (await begin(t)).location.searchParams.get('state')!;
    const flipped = state[0] === 'A' ? `B${state.slice(1)}` : `A${state.slice(1)}`;
    for (const changed of [
      other,
      flipped,
      state.toLowerCase() === state ? state.toUpperCase() : state.toLowerCase(),
      state.slice(0, -1),
      `${state}x`,
      '',
      'é'.repeat(43),
      'a'.repeat(10_000),
      [state, state],
      null,
    ]) {
      const response = await callback(t, withParams(callbackUrl, { state: changed }), cookie);
      await expectError(response, 400, 'invalid state');
    }
    // None of the refusals used the state up: the genuine pair still signs in.
    expect((await callback(t, callbackUrl, cookie)).status).toBe(302);
  });

  it('refuses a state cookie whose sealed content was altered', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const [state, verifier, issuedAt, mac] = decodeURIComponent(
      cookie.slice(`${STATE_COOKIE}=`.length),
    ).split('.') as [string, string, string, string];
    const flip = (text: string) => (text[0] === 'A' ? `B${text.slice(1)}` : `A${text.slice(1)}`);
    for (const forged of [
      [state, flip(verifier), issuedAt, mac],
      [state, verifier, String(Number(issuedAt) + 500), mac],
      [state, verifier, issuedAt, flip(mac)],
      [state, verifier, issuedAt],
      [state, verifier, issuedAt, mac, mac],
      [state],
    ]) {
      const response = await callback(t, callbackUrl, `${STATE_COOKIE}=${forged.join('.')}`);
      await expectError(response, 400, 'invalid state');
    }
  });

  it('refuses a state cookie issued for another code host', async () => {
    const t = setup({
      codeHosts: { github: github(), enterprise: github({ organisationLinks: false }) },
    });
    const { cookie } = await begin(t, 'enterprise');
    const { callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl, cookie), 400, 'invalid state');
  });

  it('accepts a login that took 600 s and refuses one that took 601 s', async () => {
    const t = setup();
    const slow = await returnFromCodeHost(t);
    const slower = await returnFromCodeHost(t);
    t.clock.advance(600_000);
    expect((await callback(t, slow.callbackUrl, slow.cookie)).status).toBe(302);
    t.clock.advance(1_000);
    await expectError(await callback(t, slower.callbackUrl, slower.cookie), 400, 'invalid state');
  });

  it('refuses a callback with no code, an empty code or two codes with 400 missing code', async () => {
    const t = setup();
    for (const code of [null, '', ['a', 'b']]) {
      const { cookie, callbackUrl } = await returnFromCodeHost(t);
      await expectError(
        await callback(t, withParams(callbackUrl, { code }), cookie),
        400,
        'missing code',
      );
    }
  });

  it('answers a code the code host refuses with 400 invalid code', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const response = await callback(t, withParams(callbackUrl, { code: 'not-issued' }), cookie);
    await expectError(response, 400, 'invalid code');
    expect(t.logs.messages()).toContain(
      '[oauth] github code exchange failed (invalid-code): token endpoint error bad_verification_code',
    );
  });

  it('sends the verifier: a code bound to another login’s challenge is refused', async () => {
    const t = setup();
    const first = await returnFromCodeHost(t);
    const second = await returnFromCodeHost(t);
    const swapped = withParams(second.callbackUrl, {
      code: first.callbackUrl.searchParams.get('code'),
    });
    await expectError(await callback(t, swapped, second.cookie), 400, 'invalid code');
  });

  it('answers ?error=access_denied with 400 login denied without calling the token endpoint', async () => {
    const t = setup();
    host.authorizeError = 'access_denied';
    const before = host.requests.length;
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl, cookie), 400, 'login denied');
    expect(host.requests.slice(before)).toEqual(['/login/oauth/authorize']);
  });

  it('answers another ?error= with 502 code host error and never echoes its description', async () => {
    const t = setup();
    host.authorizeError = 'redirect_uri_mismatch';
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl, cookie), 502, 'code host error');
    expect(t.logs.messages()).toContain(
      '[oauth] github refused the authorization: redirect_uri_mismatch',
    );
    expect(t.logs.rawLines.join('\n')).not.toContain(LEAK_MARKER);
  });

  it('checks the state before a code-host error', async () => {
    const t = setup();
    host.authorizeError = 'access_denied';
    const { callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl), 400, 'invalid state');
  });

  it.each([
    [
      'an error JSON with status 400',
      'error-json-400',
      'token endpoint error incorrect_client_credentials',
    ],
    ['status 500', 'status-500', 'token endpoint answered 500'],
  ] as const)('answers a token endpoint %s with 502 code host error', async (_, mode, detail) => {
    const t = setup();
    host.tokenMode = mode;
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const response = await callback(t, callbackUrl, cookie);
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: 'code host error' });
    expect(text).not.toContain(LEAK_MARKER);
    expect(t.logs.messages()).toContain(`[oauth] github code exchange failed (failed): ${detail}`);
  });

  it('answers wrong client credentials with 502 code host error', async () => {
    const t = createTestApi(({ store, clock }) => ({
      oauth: {
        codeHosts: {
          github: githubCodeHost({
            clientId: CLIENT_ID,
            clientSecret: 'wrong-secret',
            redirectUri: REDIRECT_URI,
            authorizeUrl: host.authorizeUrl,
            tokenUrl: host.tokenUrl,
            apiBaseUrl: host.apiBaseUrl,
          }),
        },
        dashboardUrl: DASHBOARD_URL,
        resolveIdentity: createPersonalOrganisationResolver({ store, clock }),
      },
    }));
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl, cookie), 502, 'code host error');
  });

  it.each([
    ['status 401', 'status-401', 'user endpoint answered 401'],
    [
      'an account without a numeric id',
      'malformed',
      'user endpoint answered without a valid id and login',
    ],
  ] as const)(
    'answers a user endpoint with %s with 502 code host error',
    async (_, mode, detail) => {
      const t = setup();
      host.userMode = mode;
      const { cookie, callbackUrl } = await returnFromCodeHost(t);
      await expectError(await callback(t, callbackUrl, cookie), 502, 'code host error');
      expect(t.logs.messages()).toContain(
        `[oauth] github code exchange failed (failed): ${detail}`,
      );
      expect(t.audit.lines).toEqual([]);
    },
  );

  it.each([
    ['token', 'tokenMode'],
    ['user', 'userMode'],
  ] as const)(
    'answers a %s endpoint that does not answer within the budget with 504',
    async (_, mode) => {
      const t = setup({ timeoutMs: 200 });
      const { cookie, callbackUrl } = await returnFromCodeHost(t);
      host[mode] = 'hang';
      await expectError(await callback(t, callbackUrl, cookie), 504, 'code host timeout');
      expect(t.logs.messages()).toContain(
        '[oauth] github code exchange failed (timeout): no answer within 200 ms',
      );
      expect(t.audit.lines).toEqual([]);
    },
  );

  it('answers an unreachable code host with 502 code host unavailable', async () => {
    const t = setup({ codeHosts: { github: github({ tokenUrl: 'http://127.0.0.1:1/token' }) } });
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl, cookie), 502, 'code host unavailable');
    expect(t.logs.messages()).toContain(
      '[oauth] github code exchange failed (unavailable): token endpoint unreachable',
    );
  });

  it('answers a throwing resolveIdentity with 500, logs it once with the request and creates no session', async () => {
    const t = setup({
      resolveIdentity: async () => {
        throw new Error('directory down');
      },
    });
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl, cookie), 500, 'internal error');
    expect(t.logs.messages().filter((message) => message.includes('directory down'))).toEqual([
      '[api] GET /auth/github/callback failed: resolveIdentity failed: directory down',
    ]);
    expect(t.audit.lines).toEqual([]);
  });

  it('answers 500 when resolveIdentity names an organisation that does not exist', async () => {
    const t = setup({ resolveIdentity: async () => ({ userId: 'usr_x', orgId: 'org_missing' }) });
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    await expectError(await callback(t, callbackUrl, cookie), 500, 'internal error');
    expect(t.logs.messages()).toContain(
      '[oauth] resolveIdentity returned an unknown organisation org_missing',
    );
  });

  it('hands resolveIdentity the code host name and the account id and login only', async () => {
    const seen: unknown[] = [];
    const t = setup({
      resolveIdentity: async (input) => {
        seen.push(input);
        const org = await t.createOrganisation();
        return { userId: 'usr_seen', orgId: org.id };
      },
    });
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    expect((await callback(t, callbackUrl, cookie)).status).toBe(302);
    expect(seen).toEqual([
      { codeHost: 'github', user: { id: String(ACCOUNT.id), login: ACCOUNT.login } },
    ]);
  });

  it('answers an unknown code host with 404 and still clears the state cookie', async () => {
    const t = setup();
    await expectError(await t.request('/auth/gitlab/callback?code=a&state=b'), 404, 'not found');
  });

  it('never writes a secret, code, state, verifier or access token to the log', async () => {
    const t = setup();
    const { cookie, callbackUrl } = await returnFromCodeHost(t);
    const session = setCookie(await callback(t, callbackUrl, cookie), 'covgate_session')!;
    host.tokenMode = 'error-json-400';
    const failed = await returnFromCodeHost(t);
    await callback(t, failed.callbackUrl, failed.cookie);
    const log = t.logs.rawLines.join('\n');
    const sealed = decodeURIComponent(cookie.slice(`${STATE_COOKIE}=`.length));
    for (const secret of [
      CLIENT_SECRET,
      LEAK_MARKER,
      callbackUrl.searchParams.get('code')!,
      ...sealed.split('.').filter((part) => part.length > 20),
      cookiePair(session).split('=')[1]!,
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
