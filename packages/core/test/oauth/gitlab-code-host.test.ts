import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CodeHostError } from '@covgate/core';
import { gitlabCodeHost } from '@covgate/core/gitlab';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// gitlabCodeHost against a local GitLab that answers as GitLab's OAuth 2.0 provider documents:
// `POST /oauth/token` checks the client, the code and the PKCE verifier and refuses with
// `400 {"error":"invalid_grant"}`; `GET /api/v4/user` answers the account of a Bearer token.

const CLIENT_ID = 'gitlab-app-id';
const CLIENT_SECRET = 'gitlab-app-secret-5e1f';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const CODE = 'gitlab-code-1';

let server: Server;
let base: string;
let userAnswer: { status: number; body: unknown };
const requests: string[] = [];

const readForm = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    requests.push(`${request.method} ${url.pathname}`);
    const send = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'POST' && url.pathname === '/oauth/token') {
      const form = await readForm(request);
      const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
      const client =
        request.headers.authorization === `Basic ${basic}` ||
        (form.get('client_id') === CLIENT_ID && form.get('client_secret') === CLIENT_SECRET);
      if (!client) return send(401, { error: 'invalid_client' });
      const verifier = form.get('code_verifier') ?? '';
      const pkce = createHash('sha256').update(verifier).digest('base64url') === CHALLENGE;
      if (form.get('grant_type') !== 'authorization_code' || form.get('code') !== CODE || !pkce) {
        return send(400, {
          error: 'invalid_grant',
          error_description: 'The provided authorization grant is invalid',
        });
      }
      return send(200, { access_token: 'gitlab-access', token_type: 'Bearer', scope: 'read_user' });
    }
    if (request.method === 'GET' && url.pathname === '/api/v4/user') {
      if (request.headers.authorization !== 'Bearer gitlab-access') {
        return send(401, { message: '401 Unauthorized' });
      }
      return send(userAnswer.status, userAnswer.body);
    }
    send(404, { message: '404 Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  userAnswer = { status: 200, body: { id: 4242, username: 'octo-lab', name: 'Octo Lab' } };
  requests.length = 0;
});

const host = (overrides: { baseUrl?: string } = {}) =>
  gitlabCodeHost({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: 'https://covgate.example.com/auth/gitlab/callback',
    baseUrl: overrides.baseUrl ?? `${base}/`,
  });

const exchange = (code = CODE, codeVerifier = VERIFIER) =>
  host().exchangeCode({ code, codeVerifier, signal: AbortSignal.timeout(5_000) });

describe('the GitLab code host', () => {
  it("sends the browser to the instance's authorize endpoint with an S256 challenge, read_user and read_api", () => {
    const url = host().authorizationUrl({ state: 'state-1', codeVerifier: VERIFIER });
    expect(`${url.origin}${url.pathname}`).toBe(`${base}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: 'https://covgate.example.com/auth/gitlab/callback',
      state: 'state-1',
      scope: 'read_user read_api',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
    });
    const hosted = gitlabCodeHost({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: 'https://covgate.example.com/auth/gitlab/callback',
    }).authorizationUrl({ state: 's', codeVerifier: VERIFIER });
    expect(`${hosted.origin}${hosted.pathname}`).toBe('https://gitlab.com/oauth/authorize');
  });

  it('exchanges the code with its verifier and reads the account: its numeric id and username', async () => {
    expect(await exchange()).toEqual({ id: '4242', login: 'octo-lab' });
    expect(requests).toEqual(['POST /oauth/token', 'GET /api/v4/user']);
  });

  it('calls a refused code (or a verifier that does not match) invalid-code', async () => {
    for (const [code, verifier] of [
      ['used-code', VERIFIER],
      [CODE, 'w'.repeat(43)],
    ]) {
      const error = await exchange(code, verifier).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(CodeHostError);
      expect([(error as CodeHostError).failure, (error as CodeHostError).detail]).toEqual([
        'invalid-code',
        'token endpoint error invalid_grant',
      ]);
    }
  });

  it('fails on a user endpoint that refuses or names no valid account, and on an unreachable instance', async () => {
    const failure = async (run: () => Promise<unknown>) => {
      const error = (await run().catch((thrown: unknown) => thrown)) as CodeHostError;
      return [error.failure, error.detail];
    };
    userAnswer = { status: 403, body: { message: '403 Forbidden' } };
    expect(await failure(() => exchange())).toEqual(['failed', 'user endpoint answered 403']);
    userAnswer = { status: 200, body: { id: '4242', username: 'octo-lab' } };
    expect(await failure(() => exchange())).toEqual([
      'failed',
      'user endpoint answered without a valid id and username',
    ]);
    const closed = gitlabCodeHost({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUri: 'https://covgate.example.com/auth/gitlab/callback',
      baseUrl: 'http://127.0.0.1:1',
    });
    expect(
      await failure(() =>
        closed.exchangeCode({
          code: CODE,
          codeVerifier: VERIFIER,
          signal: AbortSignal.timeout(5_000),
        }),
      ),
    ).toEqual(['unavailable', 'token endpoint unreachable']);
  });

  it('refuses an empty client id or a base URL that is not http(s), naming the option', () => {
    expect(() =>
      gitlabCodeHost({ clientId: '', clientSecret: 's', redirectUri: 'https://c.example/cb' }),
    ).toThrow('gitlabCodeHost: clientId is required');
    expect(() =>
      gitlabCodeHost({
        clientId: 'i',
        clientSecret: 's',
        redirectUri: 'https://c.example/cb',
        baseUrl: 'gitlab.example.com',
      }),
    ).toThrow('gitlabCodeHost: baseUrl must be an absolute http(s) URL');
  });
});
