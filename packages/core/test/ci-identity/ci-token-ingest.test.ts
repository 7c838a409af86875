import { type FakeOidcIssuer, startFakeOidcIssuer } from '@covgate/test-support/fake-oidc-issuer';
import { createTestApi, type TestApiOptions } from '@covgate/testing';
import { base64url, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import type { CiTokenOptions } from '../../src/index.js';

const AUDIENCE = 'https://covgate.example.com';
const INVALID = { error: 'invalid token' };
const FORBIDDEN = { error: 'forbidden' };

let issuers: FakeOidcIssuer[] = [];
afterEach(async () => {
  await Promise.all(issuers.map((issuer) => issuer.close()));
  issuers = [];
});

async function issuer(): Promise<FakeOidcIssuer> {
  const started = await startFakeOidcIssuer();
  issuers.push(started);
  return started;
}

/**
 * A test API accepting GitHub ID tokens from `github` (and GitLab's from `gitlab`) under
 * {@link AUDIENCE}, its loopback issuers allowed, and an organisation `acme` whose repository
 * `api` trusts `acme/api` on GitHub (and `acme/platform/api` on GitLab).
 */
async function keyless(
  github: FakeOidcIssuer,
  options: { ciTokens?: Partial<CiTokenOptions>; gitlab?: FakeOidcIssuer } & Omit<
    TestApiOptions,
    'ciTokens'
  > = {},
) {
  const { ciTokens, gitlab, ...rest } = options;
  const t = createTestApi({
    allowPrivateCodeHosts: ['127.0.0.1'],
    ciTokens: {
      audience: AUDIENCE,
      github: github.issuer,
      ...(gitlab ? { gitlab: gitlab.issuer } : {}),
      ...ciTokens,
    },
    ...rest,
  });
  const org = await t.createOrganisation('team');
  const { token: session } = await t.createSession(org, 'usr_owner');
  const settings = (body: unknown) =>
    t.request('/v1/repos/settings', {
      method: 'PATCH',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ org: org.slug, repo: 'api', ...(body as object) }),
    });
  const trusted = await settings({
    ci_trust: [
      { provider: 'github', repository: 'acme/api' },
      { provider: 'gitlab', repository: 'acme/platform/api' },
    ],
  });
  expect(trusted.status).toBe(200);
  const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);
  /** Claims of a GitHub Actions job of `acme/api` on main, valid now for 5 minutes. */
  const githubClaims = (claims: Record<string, unknown> = {}) => ({
    aud: AUDIENCE,
    repository: 'acme/api',
    repository_owner: 'acme',
    ref: 'refs/heads/main',
    sub: 'repo:acme/api:ref:refs/heads/main',
    iat: nowSeconds(),
    nbf: nowSeconds(),
    exp: nowSeconds() + 300,
    ...claims,
  });
  const ingest = (token: string, body: Record<string, unknown> = {}, headers = {}) =>
    t.request('/v1/executions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ org: org.slug, repo: 'api', branch: 'main', coverage: 81.5, ...body }),
    });
  const oidcLogs = () => t.logs.messages().filter((message) => message.startsWith('[oidc]'));
  return { t, org, session, settings, githubClaims, nowSeconds, ingest, oidcLogs };
}

describe('a run posted with a GitHub Actions ID token', () => {
  it('is recorded for the organisation that trusts the repository, with who posted it', async () => {
    const github = await issuer();
    const { t, org, ingest, githubClaims } = await keyless(github);
    const setUp = t.audit.lines.length;
    const response = await ingest(await github.sign(githubClaims()));
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toMatchObject({ repo: 'api', branch: 'main', coverage: 81.5, outcome: 'pass' });
    expect(body.posted_by).toBe('oidc:github:acme/api@refs/heads/main');
    const [stored] = await t.store.listExecutions({ orgId: org.id, repo: 'api', limit: 1 });
    expect(stored?.postedBy).toBe('oidc:github:acme/api@refs/heads/main');
    expect(t.audit.lines.slice(setUp)).toEqual([]);
  });

  it('is refused with 401 for another audience, and the log says which check failed', async () => {
    const github = await issuer();
    const { t, ingest, githubClaims, oidcLogs } = await keyless(github);
    const setUp = t.audit.lines.length;
    const response = await ingest(
      await github.sign(githubClaims({ aud: 'https://other.example' })),
    );
    expect([response.status, await response.json()]).toEqual([401, INVALID]);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: ERR_JWT_CLAIM_VALIDATION_FAILED (unexpected "aud" claim value)',
    ]);
    expect(t.audit.lines.slice(setUp)).toEqual([
      '[audit] auth.denied method=POST path=/v1/executions reason=invalid_or_expired_token remote=203.0.113.7',
    ]);
    expect(t.logs.rawLines.join('\n')).not.toContain('eyJ');
  });

  it('is refused when expired beyond the 60 s skew, and accepted just within it', async () => {
    const github = await issuer();
    const { ingest, githubClaims, nowSeconds, oidcLogs } = await keyless(github);
    const now = nowSeconds();
    const expired = await ingest(
      await github.sign(githubClaims({ iat: now - 700, nbf: now - 700, exp: now - 61 })),
    );
    expect([expired.status, await expired.json()]).toEqual([401, INVALID]);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: ERR_JWT_EXPIRED ("exp" claim timestamp check failed)',
    ]);
    const withinSkew = await ingest(
      await github.sign(githubClaims({ iat: now - 700, nbf: now - 700, exp: now - 30 })),
    );
    expect(withinSkew.status).toBe(201);
  });

  it('is refused while not yet valid (nbf beyond the skew)', async () => {
    const github = await issuer();
    const { ingest, githubClaims, nowSeconds, oidcLogs } = await keyless(github);
    const now = nowSeconds();
    const early = await ingest(
      await github.sign(githubClaims({ iat: now, nbf: now + 120, exp: now + 400 })),
    );
    expect([early.status, await early.json()]).toEqual([401, INVALID]);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: ERR_JWT_CLAIM_VALIDATION_FAILED ("nbf" claim timestamp check failed)',
    ]);
  });

  it('is refused without exp or without iat', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github);
    expect((await ingest(await github.sign(githubClaims({ exp: undefined })))).status).toBe(401);
    expect((await ingest(await github.sign(githubClaims({ iat: undefined })))).status).toBe(401);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: ERR_JWT_CLAIM_VALIDATION_FAILED (missing required "exp" claim)',
      '[oidc] CI ID token refused: ERR_JWT_CLAIM_VALIDATION_FAILED (missing required "iat" claim)',
    ]);
  });

  it('is refused from an issuer that is not configured, without fetching anything', async () => {
    const github = await issuer();
    const stranger = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github);
    const response = await ingest(await stranger.sign(githubClaims()));
    expect([response.status, await response.json()]).toEqual([401, INVALID]);
    expect(oidcLogs()).toEqual(['[oidc] CI ID token refused: issuer not configured']);
    expect([github.jwksRequests, stranger.jwksRequests]).toEqual([0, 0]);
  });

  it('is refused with alg none', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github);
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT', kid: 'key-1' }));
    const payload = base64url.encode(JSON.stringify({ ...githubClaims(), iss: github.issuer }));
    const response = await ingest(`${header}.${payload}.`);
    expect([response.status, await response.json()]).toEqual([401, INVALID]);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: ERR_JOSE_ALG_NOT_ALLOWED ("alg" (Algorithm) Header Parameter value not allowed)',
    ]);
  });

  it('is refused when signed HS256 with the issuer public key as the secret', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github);
    const publicKey = new TextEncoder().encode(JSON.stringify(github.publicJwk()));
    const forged = await new SignJWT({ ...githubClaims(), iss: github.issuer })
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1', typ: 'JWT' })
      .sign(publicKey);
    const response = await ingest(forged);
    expect([response.status, await response.json()]).toEqual([401, INVALID]);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: ERR_JOSE_ALG_NOT_ALLOWED ("alg" (Algorithm) Header Parameter value not allowed)',
    ]);
  });

  it('is refused when its signature does not verify', async () => {
    const github = await issuer();
    const { ingest, githubClaims } = await keyless(github);
    const token = await github.sign(githubClaims());
    const [header, , signature] = token.split('.');
    const tampered = base64url.encode(
      JSON.stringify({ ...githubClaims({ repository: 'acme/api' }), iss: github.issuer, x: 1 }),
    );
    const response = await ingest(`${header}.${tampered}.${signature}`);
    expect([response.status, await response.json()]).toEqual([401, INVALID]);
  });

  it('is refused with an unknown key, then accepted once the issuer publishes it (a rotation), refetching at most once per cooldown', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github, {
      ciTokens: { jwks: { cooldownMs: 300 } },
    });
    expect((await ingest(await github.sign(githubClaims()))).status).toBe(201);
    expect(github.jwksRequests).toBe(1);
    const rotated = await github.addKey({ alg: 'ES256', publish: false });
    const token = await github.sign(githubClaims(), { kid: rotated });
    const unknown = await ingest(token);
    expect([unknown.status, await unknown.json()]).toEqual([401, INVALID]);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: ERR_JWKS_NO_MATCHING_KEY (no applicable key found in the JSON Web Key Set)',
    ]);
    // Within the cooldown an unknown key id makes no request at all.
    expect((await ingest(token)).status).toBe(401);
    expect(github.jwksRequests).toBe(1);
    github.publish(rotated);
    await new Promise((resolve) => setTimeout(resolve, 350));
    const accepted = await ingest(token);
    expect(accepted.status).toBe(201);
    expect(github.jwksRequests).toBe(2);
  });

  it('is refused with 403 from another repository, a ref or an environment the trust does not name', async () => {
    const github = await issuer();
    const { t, org, settings, ingest, githubClaims, oidcLogs } = await keyless(github);
    const other = await ingest(await github.sign(githubClaims({ repository: 'acme/web' })));
    expect([other.status, await other.json()]).toEqual([403, FORBIDDEN]);
    const cased = await ingest(await github.sign(githubClaims({ repository: 'ACME/api' })));
    expect(cased.status).toBe(403);
    expect(
      (
        await settings({
          ci_trust: [
            {
              provider: 'github',
              repository: 'acme/api',
              ref: 'refs/heads/main',
              environment: 'coverage',
            },
          ],
        })
      ).status,
    ).toBe(200);
    const branch = await ingest(
      await github.sign(githubClaims({ ref: 'refs/heads/feature', environment: 'coverage' })),
    );
    expect(branch.status).toBe(403);
    const noEnvironment = await ingest(await github.sign(githubClaims()));
    expect(noEnvironment.status).toBe(403);
    const both = await ingest(await github.sign(githubClaims({ environment: 'coverage' })));
    expect(both.status).toBe(201);
    expect(oidcLogs()).toEqual([
      `[oidc] oidc:github:acme/web@refs/heads/main is not trusted by ${org.slug}/api`,
      `[oidc] oidc:github:ACME/api@refs/heads/main is not trusted by ${org.slug}/api`,
      `[oidc] oidc:github:acme/api@refs/heads/feature (environment coverage) is not trusted by ${org.slug}/api`,
      `[oidc] oidc:github:acme/api@refs/heads/main is not trusted by ${org.slug}/api`,
    ]);
    expect(await t.store.countExecutions(org.id, 'api')).toBe(1);
  });

  it('is refused with 403 for an organisation or repository that trusts nobody, alike', async () => {
    const github = await issuer();
    const { ingest, githubClaims } = await keyless(github);
    const token = await github.sign(githubClaims());
    const unknownOrg = await ingest(token, { org: 'nobody' });
    const untrustedRepo = await ingest(token, { repo: 'web' });
    expect([unknownOrg.status, await unknownOrg.json()]).toEqual([403, FORBIDDEN]);
    expect([untrustedRepo.status, await untrustedRepo.json()]).toEqual([403, FORBIDDEN]);
  });

  it('must name its organisation', async () => {
    const github = await issuer();
    const { ingest, githubClaims } = await keyless(github);
    const response = await ingest(await github.sign(githubClaims()), { org: undefined });
    expect([response.status, await response.json()]).toEqual([
      400,
      { error: 'missing required parameter: org' },
    ]);
  });

  it('may be presented again within its lifetime (a bearer token: a retry), and an Idempotency-Key replays the first record', async () => {
    const github = await issuer();
    const { t, org, ingest, githubClaims } = await keyless(github);
    const token = await github.sign(githubClaims());
    const first = await ingest(token, {}, { 'idempotency-key': 'run-42' });
    const retry = await ingest(token, {}, { 'idempotency-key': 'run-42' });
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await retry.json()).id).toBe((await first.json()).id);
    expect(await t.store.countExecutions(org.id, 'api')).toBe(1);
    t.clock.advance(10 * 60 * 1000);
    const late = await ingest(token, {}, { 'idempotency-key': 'run-42' });
    expect(late.status).toBe(401);
  });
});

describe('fetching the key set', () => {
  it('refuses a key set over the size bound, declared or streamed', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github, {
      ciTokens: { jwks: { maxBytes: 4096, failureBackoffMs: 0 } },
    });
    github.behave({ kind: 'huge', bytes: 100_000, declareLength: true });
    expect((await ingest(await github.sign(githubClaims()))).status).toBe(401);
    github.behave({ kind: 'huge', bytes: 100_000, declareLength: false });
    expect((await ingest(await github.sign(githubClaims()))).status).toBe(401);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: key set larger than 4096 bytes',
      '[oidc] CI ID token refused: key set larger than 4096 bytes',
    ]);
    github.behave({ kind: 'keys' });
    expect((await ingest(await github.sign(githubClaims()))).status).toBe(201);
  });

  it('gives up on a slow key set at the deadline, then backs off instead of asking again', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github, {
      ciTokens: { jwks: { timeoutMs: 200, failureBackoffMs: 60_000 } },
    });
    github.behave({ kind: 'slow', delayMs: 5_000 });
    const started = Date.now();
    const slow = await ingest(await github.sign(githubClaims()));
    expect(slow.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(2_000);
    github.behave({ kind: 'keys' });
    const meanwhile = await ingest(await github.sign(githubClaims()));
    expect(meanwhile.status).toBe(401);
    expect(github.jwksRequests).toBe(1);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: key set fetch timed out',
      '[oidc] CI ID token refused: key set fetch backing off after a failure',
    ]);
  });

  it('refuses an answer other than 200', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github);
    github.behave({ kind: 'status', status: 500 });
    expect((await ingest(await github.sign(githubClaims()))).status).toBe(401);
    expect(oidcLogs()).toEqual(['[oidc] CI ID token refused: key set answered HTTP 500']);
  });

  it('never reaches an issuer on a loopback address unless allowed', async () => {
    const github = await issuer();
    const { ingest, githubClaims, oidcLogs } = await keyless(github, {
      allowPrivateCodeHosts: false,
    });
    expect((await ingest(await github.sign(githubClaims()))).status).toBe(401);
    expect(github.jwksRequests).toBe(0);
    expect(oidcLogs()).toEqual([
      '[oidc] CI ID token refused: key set fetch failed: fetch failed: 127.0.0.1 is or resolves to a loopback address (refused unless ALLOW_PRIVATE_CODE_HOSTS allows it)',
    ]);
  });
});

describe('a run posted with a GitLab CI id_token', () => {
  it('is recorded with its project path and full ref', async () => {
    const github = await issuer();
    const gitlab = await issuer();
    const { ingest, nowSeconds } = await keyless(github, { gitlab });
    const token = await gitlab.sign({
      aud: AUDIENCE,
      project_path: 'acme/platform/api',
      namespace_path: 'acme/platform',
      ref: 'main',
      ref_type: 'branch',
      sub: 'project_path:acme/platform/api:ref_type:branch:ref:main',
      iat: nowSeconds(),
      nbf: nowSeconds(),
      exp: nowSeconds() + 300,
    });
    const response = await ingest(token);
    expect(response.status).toBe(201);
    expect((await response.json()).posted_by).toBe('oidc:gitlab:acme/platform/api@refs/heads/main');
    // GitLab's keys live at its own path.
    expect(gitlab.jwksRequests).toBe(1);
  });

  it('is refused with 403 for a project path trusted only under GitHub', async () => {
    const github = await issuer();
    const gitlab = await issuer();
    const { org, ingest, nowSeconds, oidcLogs } = await keyless(github, { gitlab });
    const token = await gitlab.sign({
      aud: AUDIENCE,
      project_path: 'acme/api',
      ref: 'main',
      ref_type: 'branch',
      iat: nowSeconds(),
      exp: nowSeconds() + 300,
    });
    const response = await ingest(token);
    expect([response.status, await response.json()]).toEqual([403, FORBIDDEN]);
    expect(oidcLogs()).toEqual([
      `[oidc] oidc:gitlab:acme/api@refs/heads/main is not trusted by ${org.slug}/api`,
    ]);
  });

  it('is recorded without a ref when the token has no ref_type', async () => {
    const github = await issuer();
    const gitlab = await issuer();
    const { ingest, nowSeconds } = await keyless(github, { gitlab });
    const token = await gitlab.sign({
      aud: AUDIENCE,
      project_path: 'acme/platform/api',
      ref: 'main',
      iat: nowSeconds(),
      exp: nowSeconds() + 300,
    });
    const response = await ingest(token);
    expect(response.status).toBe(201);
    expect((await response.json()).posted_by).toBe('oidc:gitlab:acme/platform/api');
  });

  it('does not pass for GitHub (a GitLab token naming repository is still GitLab)', async () => {
    const github = await issuer();
    const gitlab = await issuer();
    const { ingest, githubClaims } = await keyless(github, { gitlab });
    const response = await ingest(await gitlab.sign(githubClaims()));
    expect(response.status).toBe(401);
  });
});

describe('without CI ID tokens configured', () => {
  it('refuses a JWT like any invalid token', async () => {
    const github = await issuer();
    const t = createTestApi();
    const org = await t.createOrganisation();
    const token = await github.sign({ aud: AUDIENCE, repository: 'acme/api' });
    const response = await t.request('/v1/executions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ org: org.slug, repo: 'api', branch: 'main', coverage: 1 }),
    });
    expect([response.status, await response.json()]).toEqual([401, INVALID]);
  });
});

describe('an API token, with CI ID tokens configured', () => {
  it('still posts a run as the token', async () => {
    const github = await issuer();
    const { t, org, ingest } = await keyless(github);
    const { secret } = await t.insertToken(org);
    const response = await ingest(secret);
    expect(response.status).toBe(201);
    const [stored] = await t.store.listExecutions({ orgId: org.id, repo: 'api', limit: 1 });
    expect(String(stored?.postedBy)).not.toMatch(/^oidc:/);
  });
});

describe('refusals of CI ID tokens in the log', () => {
  it('carry the request id the response names, for a failed check and for an untrusted identity', async () => {
    const github = await issuer();
    const { t, ingest, githubClaims } = await keyless(github);
    const refused = await ingest(await github.sign(githubClaims({ aud: 'https://other.example' })));
    const untrusted = await ingest(await github.sign(githubClaims({ repository: 'acme/web' })));
    expect([refused.status, untrusted.status]).toEqual([401, 403]);
    const oidcLines = t.logs.lines().filter((line) => String(line.msg).startsWith('[oidc]'));
    expect(oidcLines.map((line) => line.requestId)).toEqual([
      refused.headers.get('x-request-id'),
      untrusted.headers.get('x-request-id'),
    ]);
    expect(refused.headers.get('x-request-id')).toMatch(/\S/);
  });
});

describe('a run posted without credentials, with CI ID tokens configured', () => {
  it('is refused with 401 as a token that is not valid', async () => {
    const github = await issuer();
    const { t, org } = await keyless(github);
    const response = await t.request('/v1/executions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ org: org.slug, repo: 'api', branch: 'main', coverage: 1 }),
    });
    expect([response.status, await response.json()]).toEqual([401, INVALID]);
  });
});

describe('the ci_trust setting', () => {
  it('is changed only by a session: an execute token gets 403 and changes nothing', async () => {
    const github = await issuer();
    const { t, org } = await keyless(github);
    const { secret } = await t.insertToken(org);
    const response = await t.request('/v1/repos/settings', {
      method: 'PATCH',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: 'api',
        ci_trust: [{ provider: 'github', repository: 'evil/repo' }],
      }),
    });
    expect([response.status, await response.json()]).toEqual([403, FORBIDDEN]);
    const read = await t.request(`/v1/repos/settings?org=${org.slug}&repo=api`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect((await read.json()).ci_trust).toEqual([
      { provider: 'github', repository: 'acme/api', ref: null, environment: null },
      { provider: 'gitlab', repository: 'acme/platform/api', ref: null, environment: null },
    ]);
  });

  it('refuses entries that are not a provider and a repository path, and null removes them all', async () => {
    const github = await issuer();
    const { settings, ingest, githubClaims } = await keyless(github);
    for (const entry of [
      { provider: 'bitbucket', repository: 'acme/api' },
      { provider: 'github', repository: 'acme' },
      { provider: 'github', repository: 'acme/api', ref: 'main' },
      { provider: 'github', repository: 'acme/api', extra: true },
      { provider: 'github', repository: 'acme/api', environment: '' },
    ]) {
      const response = await settings({ ci_trust: [entry] });
      expect([response.status, await response.json()]).toEqual([
        400,
        { error: 'invalid parameter: ci_trust' },
      ]);
    }
    const tooMany = Array.from({ length: 21 }, (_, index) => ({
      provider: 'github',
      repository: `acme/r${index}`,
    }));
    expect((await settings({ ci_trust: tooMany })).status).toBe(400);
    const cleared = await settings({ ci_trust: null });
    expect((await cleared.json()).ci_trust).toEqual([]);
    expect((await ingest(await github.sign(githubClaims()))).status).toBe(403);
  });
});
