import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeOidcIssuer, startFakeOidcIssuer } from '@covgate/test-support/fake-oidc-issuer';
import { createTestApi } from '@covgate/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { covgateIn } from './in-process.js';

// `covgate report` posting with the job's OIDC ID token to an in-process API that verifies it
// against a fake issuer on loopback; GitHub's token service is a fetch the test answers.

const SERVICE = 'http://covgate.test';
const TOKEN_SERVICE = 'https://pipelines.actions.example/idtoken?api-version=2.0';
const FLAGS = ['--report', 'lcov.info', '--repo', 'api', '--branch', 'main'];

let dir: string;
let github: FakeOidcIssuer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-keyless-'));
  await writeFile(join(dir, 'lcov.info'), 'SF:a.js\nDA:1,1\nDA:2,0\nend_of_record\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));
afterEach(() => github?.close());

async function setup() {
  github = await startFakeOidcIssuer();
  const t = createTestApi({
    allowPrivateCodeHosts: ['127.0.0.1'],
    ciTokens: { audience: SERVICE, github: github.issuer },
  });
  const org = await t.createOrganisation('team');
  const { token: session } = await t.createSession(org, 'usr_owner');
  await t.request('/v1/repos/settings', {
    method: 'PATCH',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      repo: 'api',
      ci_trust: [{ provider: 'github', repository: 'acme/api', ref: 'refs/heads/main' }],
    }),
  });
  const now = Math.floor(t.clock.now().getTime() / 1000);
  const tokenRequests: { audience: string | null; authorization: string | null }[] = [];
  const postedCredentials: string[] = [];
  /** GitHub's token service (for the request token `request-token`) and the covgate API. */
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.url.startsWith('https://pipelines.actions.example/')) {
      const url = new URL(request.url);
      tokenRequests.push({
        audience: url.searchParams.get('audience'),
        authorization: request.headers.get('authorization'),
      });
      if (request.headers.get('authorization') !== 'Bearer request-token') {
        return new Response('{"message":"unauthorized"}', { status: 401 });
      }
      const value = await github.sign({
        aud: url.searchParams.get('audience') ?? '',
        repository: 'acme/api',
        ref: 'refs/heads/main',
        iat: now,
        nbf: now,
        exp: now + 300,
      });
      return new Response(JSON.stringify({ count: 1, value }), {
        headers: { 'content-type': 'application/json' },
      });
    }
    postedCredentials.push(request.headers.get('authorization') ?? '');
    return t.api.handle(request, { remoteAddress: '203.0.113.7' });
  };
  const githubJob = {
    COVGATE_URL: SERVICE,
    GITHUB_ACTIONS: 'true',
    ACTIONS_ID_TOKEN_REQUEST_URL: TOKEN_SERVICE,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'request-token',
  };
  return { t, org, fetch, tokenRequests, postedCredentials, githubJob, now };
}

describe('covgate report on GitHub Actions without COVGATE_TOKEN', () => {
  it('asks GitHub for an ID token with the service URL as audience and posts with it', async () => {
    const { org, fetch, tokenRequests, postedCredentials, githubJob } = await setup();
    const result = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug, '--json'],
      githubJob,
      fetch,
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).posted_by).toBe('oidc:github:acme/api@refs/heads/main');
    expect(tokenRequests).toEqual([{ audience: SERVICE, authorization: 'Bearer request-token' }]);
    expect(postedCredentials).toHaveLength(1);
    const payload = (postedCredentials[0] ?? '').split('.')[1] ?? '';
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString()).aud).toBe(SERVICE);
  });

  it('asks for another audience with --oidc-audience, which the server then refuses (exit 3)', async () => {
    const { org, fetch, tokenRequests, githubJob } = await setup();
    const result = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug, '--oidc-audience', 'covgate'],
      githubJob,
      fetch,
    );
    expect(tokenRequests.map((request) => request.audience)).toEqual(['covgate']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('the service refused the credential (401 invalid token');
  });

  it('needs --org, and says so before running anything (exit 2)', async () => {
    const { fetch, tokenRequests, githubJob } = await setup();
    const result = await covgateIn(dir, ['report', ...FLAGS], githubJob, fetch);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "covgate: a run posted with the job's OIDC ID token names its organisation: pass --org SLUG (the organisation whose repository settings trust this job)\n",
    );
    expect(tokenRequests).toEqual([]);
  });

  it('keeps using COVGATE_TOKEN when it is set, unless --oidc is given', async () => {
    const { org, t, fetch, tokenRequests, postedCredentials, githubJob } = await setup();
    const { secret } = await t.insertToken(org);
    const withToken = { ...githubJob, COVGATE_TOKEN: secret };
    const byToken = await covgateIn(dir, ['report', ...FLAGS, '--org', org.slug], withToken, fetch);
    expect(byToken.code).toBe(0);
    expect(tokenRequests).toEqual([]);
    expect(postedCredentials).toEqual([`Bearer ${secret}`]);
    const byOidc = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug, '--oidc'],
      withToken,
      fetch,
    );
    expect(byOidc.code).toBe(0);
    expect(tokenRequests).toHaveLength(1);
  });

  it('exits 2 with --oidc in a job that cannot have a token', async () => {
    const { org, fetch } = await setup();
    const result = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug, '--oidc'],
      { COVGATE_URL: SERVICE },
      fetch,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'covgate: --oidc: this job has no OIDC ID token: on GitHub Actions give the job `permissions: id-token: write`; on GitLab CI declare `id_tokens: COVGATE_ID_TOKEN: aud: <the covgate URL>`\n',
    );
  });

  it("exits 3 when GitHub's token service refuses the request token", async () => {
    const { org, fetch, githubJob } = await setup();
    const result = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug],
      { ...githubJob, ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'stale' },
      fetch,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      "covgate: GitHub's ID token service answered HTTP 401 without a token; does the job have `permissions: id-token: write`?\n",
    );
  });
});

describe('covgate report on Forgejo and Gitea Actions without COVGATE_TOKEN', () => {
  // Forgejo's `enable-openid-connect: true` sets GitHub's two variables; covgate's server
  // takes no token Forgejo signs, so the CLI never asks for one there.
  const forgejoJob = (githubJob: Record<string, string>) => ({
    ...githubJob,
    GITEA_ACTIONS: 'true',
    FORGEJO_ACTIONS: 'true',
  });

  it('does not ask the token service, and asks for COVGATE_TOKEN (exit 2)', async () => {
    const { org, fetch, tokenRequests, postedCredentials, githubJob } = await setup();
    const result = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug],
      forgejoJob(githubJob),
      fetch,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'covgate: no API token: set COVGATE_TOKEN (or COVGATE_TOKEN_FILE to a file holding it), e.g. from your CI secrets\n',
    );
    expect(tokenRequests).toEqual([]);
    expect(postedCredentials).toEqual([]);
  });

  it.each([
    ['Forgejo', { GITEA_ACTIONS: 'true', FORGEJO_ACTIONS: 'true' }],
    ['Gitea', { GITEA_ACTIONS: 'true' }],
  ])(
    'refuses --oidc on %s Actions and says to post with an API token (exit 2)',
    async (name, runner) => {
      const { org, fetch, tokenRequests, githubJob } = await setup();
      const result = await covgateIn(
        dir,
        ['report', ...FLAGS, '--org', org.slug, '--oidc'],
        { ...githubJob, ...runner },
        fetch,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        `covgate: --oidc: covgate takes no ID token that ${name} Actions signs: post with an API token (COVGATE_TOKEN from a secret) instead\n`,
      );
      expect(tokenRequests).toEqual([]);
    },
  );
});

describe('covgate report on GitLab CI with an id_tokens variable', () => {
  it('posts the token of COVGATE_ID_TOKEN, or of the variable --id-token-var names', async () => {
    const { org, fetch, postedCredentials, now } = await setup();
    const token = await github.sign({
      aud: SERVICE,
      repository: 'acme/api',
      ref: 'refs/heads/main',
      iat: now,
      nbf: now,
      exp: now + 300,
    });
    const byDefault = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug],
      { COVGATE_URL: SERVICE, COVGATE_ID_TOKEN: token },
      fetch,
    );
    expect(byDefault.code).toBe(0);
    const named = await covgateIn(
      dir,
      ['report', ...FLAGS, '--org', org.slug, '--id-token-var', 'COVERAGE_JWT'],
      { COVGATE_URL: SERVICE, COVERAGE_JWT: token },
      fetch,
    );
    expect(named.code).toBe(0);
    expect(postedCredentials).toEqual([`Bearer ${token}`, `Bearer ${token}`]);
  });
});
