import { createTestApi, TEST_DASHBOARD_ORIGIN, TEST_SERVICE_TOKEN } from '@covgate/testing';
import { describe, expect, it } from 'vitest';
import { setCookie } from '../oauth/support/cookies.js';

async function signedIn(secureCookies = false) {
  const t = createTestApi({ secureCookies });
  const org = await t.createOrganisation();
  const session = await t.createSession(org);
  const name = secureCookies ? '__Host-covgate_session' : 'covgate_session';
  return { t, org, session, cookie: `${name}=${session.token}` };
}

function createToken(
  t: ReturnType<typeof createTestApi>,
  headers: Record<string, string>,
): Promise<Response> {
  return t.request('/v1/tokens', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ name: 'from the dashboard' }),
  });
}

describe('cookie sessions', () => {
  it('authenticates GET /v1/tokens with the session cookie', async () => {
    const { t, cookie } = await signedIn();
    const response = await t.request('/v1/tokens', {
      headers: { cookie: `theme=dark; ${cookie}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ tokens: [] });
  });

  it('needs no Origin on a safe method with the cookie', async () => {
    const { t, cookie } = await signedIn();
    const response = await t.request('/v1/tokens', {
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses POST /v1/tokens with the cookie and no Origin, or any Origin not on the allowlist, naming it and the setting', async () => {
    const { t, cookie } = await signedIn();
    const add = (origin: string) => `origin ${origin} is not allowed: add it to ALLOWED_ORIGINS`;
    const unlistable = (origin: string) =>
      `origin ${origin} is not allowed: only origins listed in ALLOWED_ORIGINS may write with a session cookie`;
    const refused: [string | undefined, string][] = [
      [
        undefined,
        'missing Origin header: a write with a session cookie needs an origin listed in ALLOWED_ORIGINS',
      ],
      ['https://evil.example', add('https://evil.example')],
      ['null', unlistable('null')],
      [`${TEST_DASHBOARD_ORIGIN}/`, unlistable('https://dashboard.example.com/')],
      [`${TEST_DASHBOARD_ORIGIN}.evil.example`, add('https://dashboard.example.com.evil.example')],
      [TEST_DASHBOARD_ORIGIN.toUpperCase(), unlistable('HTTPS://DASHBOARD.EXAMPLE.COM')],
      [TEST_DASHBOARD_ORIGIN.replace('https:', 'http:'), add('http://dashboard.example.com')],
      [`${TEST_DASHBOARD_ORIGIN}:443`, unlistable('https://dashboard.example.com:443')],
    ];
    for (const [origin, error] of refused) {
      const response = await createToken(t, {
        cookie,
        ...(origin === undefined ? {} : { origin }),
      });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error });
    }
    expect(t.logs.messages().filter((line) => line.startsWith('[csrf]'))).toEqual(
      refused.map(([, error]) => `[csrf] refused POST /v1/tokens: ${error}`),
    );
    const listed = await t.request('/v1/tokens', { headers: { cookie } });
    expect(await listed.json()).toEqual({ tokens: [] });
  });

  it('names a long refused Origin cut to 200 characters', async () => {
    const { t, cookie } = await signedIn();
    const long = `https://${'a'.repeat(300)}.example`;
    const response = await createToken(t, { cookie, origin: long });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: `origin ${long.slice(0, 200)}... is not allowed: add it to ALLOWED_ORIGINS`,
    });
  });

  it('creates a token with the cookie and the allowed Origin (201)', async () => {
    const { t, cookie } = await signedIn();
    const response = await createToken(t, { cookie, origin: TEST_DASHBOARD_ORIGIN });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: 'from the dashboard', status: 'active' });
    expect(response.headers.get('access-control-allow-origin')).toBe(TEST_DASHBOARD_ORIGIN);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('does not ask a Bearer session for an Origin (no ambient credential, no CSRF)', async () => {
    const { t, session } = await signedIn();
    const response = await createToken(t, { authorization: `Bearer ${session.token}` });
    expect(response.status).toBe(201);
  });

  it('logs out with the cookie and the allowed Origin, clearing the cookie', async () => {
    const { t, session, cookie } = await signedIn();
    const response = await t.request(`/v1/sessions/${session.sessionId}`, {
      method: 'DELETE',
      headers: { cookie, origin: TEST_DASHBOARD_ORIGIN },
    });
    expect(response.status).toBe(204);
    const cleared = setCookie(response, 'covgate_session');
    expect(cleared).toMatch(/^covgate_session=;/);
    expect(cleared).toContain('Max-Age=0');
    expect(cleared).toContain('Path=/');
    expect(t.audit.lines.at(-1)).toBe(`[audit] session.delete session_id=${session.sessionId}`);
    expect((await t.request('/v1/tokens', { headers: { cookie } })).status).toBe(401);
  });

  it('refuses a cookie logout without an allowed Origin and keeps the session', async () => {
    const { t, session, cookie } = await signedIn();
    for (const origin of [undefined, 'https://evil.example']) {
      const response = await t.request(`/v1/sessions/${session.sessionId}`, {
        method: 'DELETE',
        headers: { cookie, ...(origin === undefined ? {} : { origin }) },
      });
      expect(response.status).toBe(403);
    }
    expect((await t.request('/v1/tokens', { headers: { cookie } })).status).toBe(200);
  });

  it('does not clear the cookie when a Bearer credential logs out', async () => {
    const { t, session } = await signedIn();
    const response = await t.request(`/v1/sessions/${session.sessionId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}` },
    });
    expect(response.status).toBe(204);
    expect(setCookie(response, 'covgate_session')).toBeUndefined();
  });

  describe('with secure cookies', () => {
    it('reads the session from __Host-covgate_session only', async () => {
      const { t, session, cookie } = await signedIn(true);
      expect((await t.request('/v1/tokens', { headers: { cookie } })).status).toBe(200);
      const plain = await t.request('/v1/tokens', {
        headers: { cookie: `covgate_session=${session.token}` },
      });
      expect(plain.status).toBe(401);
    });

    it('clears __Host-covgate_session, Secure and on Path=/, at logout', async () => {
      const { t, session, cookie } = await signedIn(true);
      const response = await t.request(`/v1/sessions/${session.sessionId}`, {
        method: 'DELETE',
        headers: { cookie, origin: TEST_DASHBOARD_ORIGIN },
      });
      expect(response.status).toBe(204);
      const cleared = setCookie(response, '__Host-covgate_session')!;
      expect(cleared).toContain('Max-Age=0');
      expect(cleared).toContain('Secure');
      expect(cleared).toContain('Path=/');
      expect(cleared).not.toContain('Domain');
    });
  });

  it('refuses an API token presented in the session cookie with 401', async () => {
    const { t, org } = await signedIn();
    const token = await t.insertToken(org);
    for (const method of ['GET', 'POST']) {
      const response = await t.request('/v1/tokens', {
        method,
        headers: { cookie: `covgate_session=${token.secret}`, origin: TEST_DASHBOARD_ORIGIN },
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'invalid token' });
    }
    const executions = await t.request(`/v1/executions?org=${org.slug}&repo=api`, {
      headers: { cookie: `covgate_session=${token.secret}` },
    });
    expect(executions.status).toBe(401);
    expect(t.audit.lines.at(-1)).toMatch(/reason=invalid_or_expired_token/);
  });

  it('refuses a malformed, unknown or expired session cookie with 401', async () => {
    const { t, session } = await signedIn();
    for (const value of [
      '',
      'cvgs_',
      session.token.toUpperCase(),
      `${session.token}0`,
      `cvgs_${'0'.repeat(64)}`,
    ]) {
      const response = await t.request('/v1/tokens', {
        headers: { cookie: `covgate_session=${value}` },
      });
      expect(response.status).toBe(401);
    }
    t.clock.advance(24 * 60 * 60 * 1000);
    const expired = await t.request('/v1/tokens', {
      headers: { cookie: `covgate_session=${session.token}` },
    });
    expect(expired.status).toBe(401);
  });
});
