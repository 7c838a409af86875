import { type FakeOidcIssuer, startFakeOidcIssuer } from '@covgate/test-support/fake-oidc-issuer';
import { createTestApi } from '@covgate/testing';
import { afterEach, describe, expect, it } from 'vitest';

// GET /v1/repos/ci-trust: whether a repository takes a CI job's runs, asked with the job's
// OIDC ID token and without posting one (what `covgate doctor` asks).

const AUDIENCE = 'https://covgate.example.com';

let github: FakeOidcIssuer | undefined;
afterEach(async () => {
  await github?.close();
  github = undefined;
});

async function setup() {
  github = await startFakeOidcIssuer();
  const t = createTestApi({
    allowPrivateCodeHosts: ['127.0.0.1'],
    ciTokens: { audience: AUDIENCE, github: github.issuer },
  });
  const org = await t.createOrganisation('team');
  const { token: session } = await t.createSession(org, 'usr_owner');
  const trusted = await t.request('/v1/repos/settings', {
    method: 'PATCH',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      org: org.slug,
      repo: 'api',
      ci_trust: [{ provider: 'github', repository: 'acme/api', ref: 'refs/heads/main' }],
    }),
  });
  expect(trusted.status).toBe(200);
  const now = Math.floor(t.clock.now().getTime() / 1000);
  const idToken = (claims: Record<string, unknown> = {}) =>
    (github as FakeOidcIssuer).sign({
      aud: AUDIENCE,
      repository: 'acme/api',
      repository_owner: 'acme',
      ref: 'refs/heads/main',
      sub: 'repo:acme/api:ref:refs/heads/main',
      iat: now,
      nbf: now,
      exp: now + 300,
      ...claims,
    });
  const ask = async (credential: string | null, query: string) => {
    const response = await t.request(`/v1/repos/ci-trust${query}`, {
      headers: credential === null ? {} : { authorization: `Bearer ${credential}` },
    });
    return [response.status, await response.json()];
  };
  return { t, org, session, idToken, ask };
}

describe('GET /v1/repos/ci-trust', () => {
  it('answers 200 with the identity the runs would be posted as, and records nothing', async () => {
    const { t, org, idToken, ask } = await setup();
    expect(await ask(await idToken(), `?org=${org.slug}&repo=api`)).toEqual([
      200,
      { org: org.slug, repo: 'api', posted_by: 'oidc:github:acme/api@refs/heads/main' },
    ]);
    expect(await t.store.listExecutions({ orgId: org.id, repo: 'api', limit: 1 })).toEqual([]);
  });

  it('answers 403 for a job the repository does not trust, an unknown repository or organisation', async () => {
    const { org, idToken, ask } = await setup();
    const forbidden = [403, { error: 'forbidden' }];
    const otherRef = await idToken({ ref: 'refs/heads/feature' });
    expect(await ask(otherRef, `?org=${org.slug}&repo=api`)).toEqual(forbidden);
    expect(await ask(await idToken(), `?org=${org.slug}&repo=web`)).toEqual(forbidden);
    expect(await ask(await idToken(), '?org=nobody&repo=api')).toEqual(forbidden);
  });

  it('answers 401 for a token that does not verify or none, and 400 without org or repo', async () => {
    const { org, idToken, ask } = await setup();
    const invalid = [401, { error: 'invalid token' }];
    expect(await ask(await idToken({ aud: 'other' }), `?org=${org.slug}&repo=api`)).toEqual(
      invalid,
    );
    expect(await ask(null, `?org=${org.slug}&repo=api`)).toEqual(invalid);
    expect(await ask(await idToken(), '?repo=api')).toEqual([
      400,
      { error: 'missing required parameter: org' },
    ]);
    expect(await ask(await idToken(), `?org=${org.slug}`)).toEqual([
      400,
      { error: 'missing required parameter: repo' },
    ]);
  });

  it('answers 403 to an API token or a session, which do not post as a CI job', async () => {
    const { t, org, session, ask } = await setup();
    const { secret } = await t.insertToken(org);
    const forbidden = [403, { error: 'forbidden' }];
    expect(await ask(secret, `?org=${org.slug}&repo=api`)).toEqual(forbidden);
    expect(await ask(session, `?org=${org.slug}&repo=api`)).toEqual(forbidden);
  });
});
