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
import { providerASignature } from '@covgate/test-support/provider-a-signature';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieHeader, type SetCookie, setCookies } from './support/cookies.js';

const built = isServerBuilt();
if (!built) {
  console.warn('[covgate] end-to-end login run SKIPPED: run `pnpm build` first (`pnpm test` does)');
}

const CLIENT_ID = 'Iv1.e2e-login-client';
const CLIENT_SECRET = 'e2e-client-secret-5b0c1f9a7d2e';
const ACCOUNT = { id: 583231, login: 'octo-dev' };
const ORG_SLUG = `github-${ACCOUNT.id}`;
const WEBHOOK_SECRET = 'whsec_e2e_provider_a_3f9d2c71';
const DASHBOARD_ORIGIN = 'http://dashboard.test';
const DASHBOARD_URL = `${DASHBOARD_ORIGIN}/`;

const json = { 'content-type': 'application/json' };

describe.skipIf(!built && process.env.CI !== '1')(
  'end-to-end login run on the built reference server',
  () => {
    let github: FakeGithub;
    let server: BuiltServer;
    let dataDir: string;
    let redirectUrl: string;

    // Carried from step to step, as a browser and a CI job would.
    let authorizeUrl: URL;
    let stateCookie: SetCookie;
    let callbackUrl: string;
    let sessionCookie: SetCookie;
    let ids: { userId: string; orgId: string; sessionId: string };
    let apiToken: { id: string; secret: string };
    let executionId: string;

    const url = (path: string) => `${server.url}${path}`;
    const withToken = (extra: Record<string, string> = {}) => ({
      authorization: `Bearer ${apiToken.secret}`,
      ...extra,
    });
    const listExecutions = () =>
      fetch(url(`/v1/executions?org=${ORG_SLUG}&repo=web`), { headers: withToken() });
    const sendProviderA = (body: string, secret: string, unixSeconds: number) =>
      fetch(url('/v1/webhooks/provider-a'), {
        method: 'POST',
        headers: { ...json, 'provider-a-signature': providerASignature(body, secret, unixSeconds) },
        body,
      });
    const nowSeconds = () => Math.floor(Date.now() / 1000);

    beforeAll(async () => {
      github = await startFakeGithub({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        account: ACCOUNT,
      });
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-e2e-login-'));
      const port = await freePort();
      redirectUrl = `http://127.0.0.1:${port}/auth/github/callback`;
      server = await startBuiltServer({
        PATH: process.env.PATH,
        PORT: String(port),
        COVGATE_DATA_DIR: dataDir,
        GITHUB_CLIENT_ID: CLIENT_ID,
        GITHUB_CLIENT_SECRET: CLIENT_SECRET,
        GITHUB_BASE_URL: github.baseUrl,
        GITHUB_API_BASE_URL: github.apiBaseUrl,
        OAUTH_REDIRECT_URL: redirectUrl,
        DASHBOARD_URL,
        ALLOWED_ORIGINS: DASHBOARD_ORIGIN,
        PROVIDER_A_WEBHOOK_SECRET: WEBHOOK_SECRET,
      });
    });

    afterAll(async () => {
      await server?.kill();
      await github?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('starts the login with a state cookie and a PKCE S256 redirect to the code host', async () => {
      const started = await fetch(url('/auth/github'), { redirect: 'manual' });
      expect(started.status).toBe(302);
      expect(started.headers.get('cache-control')).toBe('no-store');

      authorizeUrl = new URL(started.headers.get('location') as string);
      expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(
        `${github.baseUrl}/login/oauth/authorize`,
      );
      const params = authorizeUrl.searchParams;
      expect(params.get('response_type')).toBe('code');
      expect(params.get('client_id')).toBe(CLIENT_ID);
      expect(params.get('redirect_uri')).toBe(redirectUrl);
      expect(params.get('scope')).toBe('read:user read:org');
      expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get('code_challenge_method')).toBe('S256');
      expect(authorizeUrl.toString()).not.toContain(CLIENT_SECRET);

      stateCookie = setCookies(started).get('covgate_oauth_state') as SetCookie;
      expect(stateCookie.value.startsWith(`${params.get('state')}.`)).toBe(true);
      expect(stateCookie.attributes.get('httponly')).toBe(true);
      expect(stateCookie.attributes.get('samesite')).toBe('Lax');
      expect(stateCookie.attributes.get('path')).toBe('/auth');
      expect(stateCookie.attributes.get('max-age')).toBe('600');
      expect(stateCookie.attributes.has('secure')).toBe(false);
    });

    it('gets a code from the code host, which sends the browser back to the callback', async () => {
      const authorized = await fetch(authorizeUrl, { redirect: 'manual' });
      expect(authorized.status).toBe(302);
      callbackUrl = authorized.headers.get('location') as string;
      const back = new URL(callbackUrl);
      expect(`${back.origin}${back.pathname}`).toBe(redirectUrl);
      expect(back.searchParams.get('state')).toBe(authorizeUrl.searchParams.get('state'));
      expect(back.searchParams.get('code')).toMatch(/^[0-9a-f]{20}$/);
    });

    it('refuses a callback whose state differs from the cookie, without spending the attempt', async () => {
      const forged = new URL(callbackUrl);
      const state = forged.searchParams.get('state') as string;
      forged.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
      const refused = await fetch(forged, {
        redirect: 'manual',
        headers: { cookie: cookieHeader(stateCookie) },
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: 'invalid state' });
      expect(setCookies(refused).get('covgate_oauth_state')?.attributes.get('max-age')).toBe('0');
      expect(setCookies(refused).has('covgate_session')).toBe(false);
      expect(github.requests).not.toContain('POST /login/oauth/access_token');
    });

    it('signs in at the callback: session cookie, state cookie cleared, 302 to the dashboard', async () => {
      const signedIn = await fetch(callbackUrl, {
        redirect: 'manual',
        headers: { cookie: cookieHeader(stateCookie) },
      });
      expect(signedIn.status).toBe(302);
      expect(signedIn.headers.get('location')).toBe(DASHBOARD_URL);
      expect(github.requests).toEqual([
        'GET /login/oauth/authorize',
        'POST /login/oauth/access_token',
        'GET /api/v3/user',
      ]);

      const cookies = setCookies(signedIn);
      sessionCookie = cookies.get('covgate_session') as SetCookie;
      expect(sessionCookie.value).toMatch(/^cvgs_[0-9a-f]{64}$/);
      expect(sessionCookie.attributes.get('httponly')).toBe(true);
      expect(sessionCookie.attributes.get('samesite')).toBe('Lax');
      expect(sessionCookie.attributes.get('path')).toBe('/');
      expect(sessionCookie.attributes.get('max-age')).toBe('86400');
      expect(sessionCookie.attributes.has('secure')).toBe(false);

      const cleared = cookies.get('covgate_oauth_state') as SetCookie;
      expect(cleared.value).toBe('');
      expect(cleared.attributes.get('max-age')).toBe('0');
      expect(cleared.attributes.get('path')).toBe('/auth');

      const audit = await server.waitForLine(
        /^\[audit\] session\.create user_id=(usr_[0-9a-z]{26}) org_id=(org_[0-9a-z]{26}) session_id=(ses_[0-9a-z]{26})$/,
      );
      ids = {
        userId: audit[1] as string,
        orgId: audit[2] as string,
        sessionId: audit[3] as string,
      };
    });

    it('refuses a replay of the callback before contacting the code host again', async () => {
      const replayed = await fetch(callbackUrl, {
        redirect: 'manual',
        headers: { cookie: cookieHeader(stateCookie) },
      });
      expect(replayed.status).toBe(400);
      expect(await replayed.json()).toEqual({ error: 'invalid state' });
      expect(setCookies(replayed).has('covgate_session')).toBe(false);
      expect(github.requests.filter((r) => r.includes('access_token'))).toHaveLength(1);
    });

    it('creates an API token with the session cookie, only from the allowed origin', async () => {
      const create = (origin: string | null) =>
        fetch(url('/v1/tokens'), {
          method: 'POST',
          headers: {
            ...json,
            cookie: cookieHeader(sessionCookie),
            ...(origin === null ? {} : { origin }),
          },
          body: JSON.stringify({ name: 'ci', agent_type: 'github-actions' }),
        });

      const withoutOrigin = await create(null);
      expect(withoutOrigin.status).toBe(403);
      expect(await withoutOrigin.json()).toEqual({
        error:
          'missing Origin header: a write with a session cookie needs an origin listed in ALLOWED_ORIGINS',
      });
      const foreign = await create('http://dashboard.test.evil.test');
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toEqual({
        error: 'origin http://dashboard.test.evil.test is not allowed: add it to ALLOWED_ORIGINS',
      });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

      const created = await create(DASHBOARD_ORIGIN);
      expect(created.status).toBe(201);
      expect(created.headers.get('access-control-allow-origin')).toBe(DASHBOARD_ORIGIN);
      expect(created.headers.get('access-control-allow-credentials')).toBe('true');
      const body = (await created.json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        name: 'ci',
        scopes: ['execute'],
        agent_type: 'github-actions',
        status: 'active',
      });
      expect(body.secret).toMatch(/^cvg_[0-9a-f]{40}$/);
      apiToken = { id: body.id as string, secret: body.secret as string };
      expect(apiToken.secret.slice(4, 36)).toBe(apiToken.id);

      await server.waitForLine(
        new RegExp(
          `^\\[audit\\] token\\.create org_id=${ids.orgId} token_id=${apiToken.id} scopes=\\[execute\\] agent_type=github-actions$`,
        ),
      );
      const tokenLines = server.stdout().match(/^\[audit\] token\.create .*$/gm) ?? [];
      expect(tokenLines).toHaveLength(1);
    });

    it('ingests and lists an execution with the token, on the free plan limit of 60 per minute', async () => {
      const ingested = await fetch(url('/v1/executions'), {
        method: 'POST',
        headers: withToken(json),
        body: JSON.stringify({ repo: 'web', branch: 'main', coverage: 84.13 }),
      });
      expect(ingested.status).toBe(201);
      const record = (await ingested.json()) as Record<string, unknown>;
      expect(record).toMatchObject({ repo: 'web', branch: 'main', outcome: 'pass', delta: '0.00' });
      executionId = record.id as string;
      expect(executionId).toMatch(/^exe_[0-9a-z]{26}$/);

      const listed = await listExecutions();
      expect(listed.status).toBe(200);
      expect(listed.headers.get('ratelimit-limit')).toBe('60');
      expect(listed.headers.get('ratelimit-remaining')).toBe('58');
      const envelope = (await listed.json()) as { executions: { id: string }[]; total: number };
      expect(envelope.total).toBe(1);
      expect(envelope.executions.map((e) => e.id)).toEqual([executionId]);
    });

    it("upgrades the token's organisation to team through a signed provider A webhook, once", async () => {
      const validated = await fetch(url('/v1/auth/validate'), {
        method: 'POST',
        headers: withToken(),
      });
      expect(validated.status).toBe(200);
      expect(await validated.json()).toEqual({
        valid: true,
        org_id: ids.orgId,
        org: ORG_SLUG,
        token_id: apiToken.id,
        scopes: ['execute'],
        expires_at: null,
      });

      const body = JSON.stringify({
        id: 'evt_e2e_upgrade_0001',
        object: 'event',
        type: 'customer.subscription.updated',
        created: nowSeconds(),
        data: {
          object: { id: 'sub_e2e', metadata: { covgate_org_id: ids.orgId, plan: 'team' } },
        },
      });

      const wrongSecret = await sendProviderA(body, 'whsec_not_the_secret', nowSeconds());
      expect(wrongSecret.status).toBe(401);
      expect(await wrongSecret.json()).toEqual({ error: 'invalid signature' });
      const stale = await sendProviderA(body, WEBHOOK_SECRET, nowSeconds() - 301);
      expect(stale.status).toBe(401);
      const tampered = await fetch(url('/v1/webhooks/provider-a'), {
        method: 'POST',
        headers: {
          ...json,
          'provider-a-signature': providerASignature(body, WEBHOOK_SECRET, nowSeconds()),
        },
        body: body.replace('"team"', '"enterprise"'),
      });
      expect(tampered.status).toBe(401);
      expect((await listExecutions()).headers.get('ratelimit-limit')).toBe('60');

      const delivered = await sendProviderA(body, WEBHOOK_SECRET, nowSeconds());
      expect(delivered.status).toBe(200);
      expect(await delivered.json()).toEqual({ received: true });

      const redelivered = await sendProviderA(body, WEBHOOK_SECRET, nowSeconds());
      expect(redelivered.status).toBe(200);
      expect(await redelivered.json()).toEqual({ received: true, duplicate: true });
    });

    it("raises the token's limit from 60 to 600 per minute on its next request", async () => {
      const listed = await listExecutions();
      expect(listed.status).toBe(200);
      expect(listed.headers.get('ratelimit-limit')).toBe('600');
      expect(listed.headers.get('ratelimit-remaining')).toBe('599');
      expect(((await listed.json()) as { total: number }).total).toBe(1);
    });

    it('logs out: 204, the cookie is cleared and no longer works, the API token still does', async () => {
      const logout = (headers: Record<string, string>) =>
        fetch(url(`/v1/sessions/${ids.sessionId}`), {
          method: 'DELETE',
          headers: { cookie: cookieHeader(sessionCookie), ...headers },
        });

      const crossSite = await logout({});
      expect(crossSite.status).toBe(403);

      const loggedOut = await logout({ origin: DASHBOARD_ORIGIN });
      expect(loggedOut.status).toBe(204);
      const cleared = setCookies(loggedOut).get('covgate_session') as SetCookie;
      expect(cleared.value).toBe('');
      expect(cleared.attributes.get('max-age')).toBe('0');
      expect(cleared.attributes.get('path')).toBe('/');
      await server.waitForLine(
        new RegExp(`^\\[audit\\] session\\.delete session_id=${ids.sessionId}$`),
      );

      const afterLogout = await fetch(url('/v1/tokens'), {
        headers: { cookie: cookieHeader(sessionCookie) },
      });
      expect(afterLogout.status).toBe(401);
      expect(await afterLogout.json()).toEqual({ error: 'invalid token' });
      expect((await logout({ origin: DASHBOARD_ORIGIN })).status).toBe(401);

      expect((await listExecutions()).status).toBe(200);
    });

    it('never writes a secret, a token or a code to its output', () => {
      const output = server.output();
      const code = new URL(callbackUrl).searchParams.get('code') as string;
      for (const secret of [
        CLIENT_SECRET,
        WEBHOOK_SECRET,
        sessionCookie.value,
        apiToken.secret,
        code,
        authorizeUrl.searchParams.get('state') as string,
        ...github.accessTokens,
      ]) {
        expect(output).not.toContain(secret);
      }
      expect(github.accessTokens.size).toBe(1);
    });

    it('shuts down on SIGTERM with exit code 0', async () => {
      expect(await server.stop('SIGTERM')).toBe(0);
    });
  },
);
