import { createHash } from 'node:crypto';
import { CodeHostError } from '@covgate/core';
import { giteaCodeHost } from '@covgate/core/gitea';
import { type FakeOAuthHost, startFakeGitea } from '@covgate/test-support/fake-oauth-host';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// giteaCodeHost against a local Gitea that answers as Gitea's OAuth2 provider does: the token
// endpoint refuses `400 {"error":"unauthorized_client"}` with a description telling an unknown
// code, a failed PKCE challenge and a wrong client secret apart; `GET /api/v1/user` answers the
// account of a token it issued.

const CLIENT_ID = 'b1f2c3d4-gitea-app';
const CLIENT_SECRET = 'gto_gitea-app-secret-77a1';
const REDIRECT_URI = 'https://covgate.example.com/auth/gitea/callback';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

let gitea: FakeOAuthHost;

beforeAll(async () => {
  gitea = await startFakeGitea({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    account: { id: 31, login: 'tea-maker' },
  });
});

afterAll(() => gitea.close());

beforeEach(() => {
  gitea.answerUserWith(null);
  gitea.requests.length = 0;
});

const host = (clientSecret = CLIENT_SECRET, baseUrl = `${gitea.baseUrl}/`) =>
  giteaCodeHost({ clientId: CLIENT_ID, clientSecret, redirectUri: REDIRECT_URI, baseUrl });

/** Goes through Gitea's authorize endpoint as a browser would; returns the code it sends back. */
async function authorize(verifier = VERIFIER): Promise<string> {
  const url = host().authorizationUrl({ state: 'state-1', codeVerifier: verifier });
  const answer = await fetch(url, { redirect: 'manual' });
  const back = new URL(answer.headers.get('location') as string);
  expect(back.searchParams.get('state')).toBe('state-1');
  return back.searchParams.get('code') as string;
}

const exchange = (code: string, codeVerifier = VERIFIER, clientSecret = CLIENT_SECRET) =>
  host(clientSecret).exchangeCode({ code, codeVerifier, signal: AbortSignal.timeout(5_000) });

const failure = async (run: () => Promise<unknown>) => {
  const error = await run().catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(CodeHostError);
  return [(error as CodeHostError).failure, (error as CodeHostError).detail];
};

describe('the Gitea code host', () => {
  it("sends the browser to the instance's authorize endpoint with an S256 challenge, read:user and read:organization", () => {
    const url = host().authorizationUrl({ state: 'state-1', codeVerifier: VERIFIER });
    expect(`${url.origin}${url.pathname}`).toBe(`${gitea.baseUrl}/login/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: 'state-1',
      scope: 'read:user read:organization',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
  });

  it('exchanges the code with its verifier and reads the account: its numeric id and login', async () => {
    const code = await authorize();
    expect(await exchange(code)).toEqual({ id: '31', login: 'tea-maker' });
    expect(gitea.requests).toEqual([
      'GET /login/oauth/authorize',
      'POST /login/oauth/access_token',
      'GET /api/v1/user',
    ]);
  });

  it('calls a used code and a verifier that does not match invalid-code, naming what Gitea said', async () => {
    const code = await authorize();
    expect(await failure(() => exchange(code, 'w'.repeat(43)))).toEqual([
      'invalid-code',
      'token endpoint error unauthorized_client (failed PKCE code challenge)',
    ]);
    await exchange(code);
    expect(await failure(() => exchange(code))).toEqual([
      'invalid-code',
      'token endpoint error unauthorized_client (client is not authorized)',
    ]);
  });

  it('calls a wrong client secret a failure, not a refused code, and logs none of its words', async () => {
    const code = await authorize();
    expect(await failure(() => exchange(code, VERIFIER, 'not-the-secret'))).toEqual([
      'failed',
      'token endpoint error unauthorized_client',
    ]);
  });

  it('fails on a user endpoint that refuses or names no valid account, and on an unreachable instance', async () => {
    gitea.answerUserWith({ status: 403, body: { message: 'token does not have scope read:user' } });
    expect(await failure(async () => exchange(await authorize()))).toEqual([
      'failed',
      'user endpoint answered 403',
    ]);
    gitea.answerUserWith({ status: 200, body: { id: 31, username: 'tea-maker' } });
    expect(await failure(async () => exchange(await authorize()))).toEqual([
      'failed',
      'user endpoint answered without a valid id and login',
    ]);
    const closed = giteaCodeHost({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: REDIRECT_URI,
      baseUrl: 'http://127.0.0.1:1',
    });
    expect(
      await failure(() =>
        closed.exchangeCode({
          code: 'c',
          codeVerifier: VERIFIER,
          signal: AbortSignal.timeout(5_000),
        }),
      ),
    ).toEqual(['unavailable', 'token endpoint unreachable']);
  });

  it('refuses a missing base URL or client secret, naming the option', () => {
    expect(() =>
      giteaCodeHost({
        clientId: 'i',
        clientSecret: 's',
        redirectUri: REDIRECT_URI,
        baseUrl: 'git.example.com',
      }),
    ).toThrow('giteaCodeHost: baseUrl must be an absolute http(s) URL');
    expect(() =>
      giteaCodeHost({
        clientId: 'i',
        clientSecret: '',
        redirectUri: REDIRECT_URI,
        baseUrl: 'https://g.example',
      }),
    ).toThrow('giteaCodeHost: clientSecret is required');
  });
});
