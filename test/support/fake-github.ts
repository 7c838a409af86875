import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The OAuth app and the account the fake knows. */
export interface FakeGithubOptions {
  clientId: string;
  clientSecret: string;
  account: { id: number; login: string };
}

/**
 * A local stand-in for GitHub (Enterprise layout) over real HTTP:
 * - `GET /login/oauth/authorize` redirects back to `redirect_uri` with a code bound to the
 *   S256 challenge and the redirect URI, and the `state` unchanged;
 * - `POST /login/oauth/access_token` checks the client credentials (HTTP Basic), that the
 *   code is known and unused, the redirect URI, and that the verifier hashes to the
 *   challenge, answering refusals the GitHub way (`200 {"error":...}`);
 * - `GET /api/v3/user` returns `{id, login}` for an access token it issued;
 * - `GET /api/v3/user/memberships/orgs/{org}` answers as GitHub documents it: `200` with the
 *   membership (`state` `active` or `pending`, `role`, `organization`, `user`) when the
 *   token's account belongs to the organisation, `404 {"message":"Not Found"}` when it does
 *   not, `403` when the token lacks the `read:org` scope (the fake's stand-in for GitHub's
 *   refusals), `401` for an unknown token.
 *
 * The account that signs in is `account` until {@link FakeGithub.signInAs} names another one
 * (the person signed in to GitHub in the browser).
 */
export interface FakeGithub {
  /** `GITHUB_BASE_URL`. */
  baseUrl: string;
  /** `GITHUB_API_BASE_URL`. */
  apiBaseUrl: string;
  /** Every access token issued, so a test can check that none leaks into logs. */
  accessTokens: Set<string>;
  /** `METHOD path` of each request received, in order. */
  requests: string[];
  /** The account the next authorization signs in (GitHub's signed-in user in the browser). */
  signInAs(account: { id: number; login: string }): void;
  /**
   * Makes `login` a member of the GitHub organisation `org` (`active`, or `pending` until it
   * accepts GitHub's invitation), or removes it (`null`).
   */
  setOrgMembership(org: string, login: string, state: 'active' | 'pending' | null): void;
  close(): Promise<void>;
}

interface IssuedCode {
  challenge: string;
  redirectUri: string;
  used: boolean;
  account: { id: number; login: string };
  scope: string;
}

const MEMBERSHIPS = '/api/v3/user/memberships/orgs/';

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeGithub(options: FakeGithubOptions): Promise<FakeGithub> {
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Set<string>();
  const grants = new Map<string, { account: { id: number; login: string }; scope: string }>();
  /** GitHub organisation (lower case) -> login (lower case) -> membership state. */
  const orgMembers = new Map<string, Map<string, 'active' | 'pending'>>();
  let account = options.account;
  const requests: string[] = [];

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake-github');
    requests.push(`${request.method} ${url.pathname}`);
    if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      authorize(url.searchParams, response);
    } else if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      exchange(request, response).catch(() => json(response, 500, { message: 'fake failed' }));
    } else if (request.method === 'GET' && url.pathname === '/api/v3/user') {
      user(request, response);
    } else if (request.method === 'GET' && url.pathname.startsWith(MEMBERSHIPS)) {
      membership(request, decodeURIComponent(url.pathname.slice(MEMBERSHIPS.length)), response);
    } else {
      json(response, 404, { message: 'Not Found' });
    }
  });

  function authorize(params: URLSearchParams, response: ServerResponse): void {
    const redirectUri = params.get('redirect_uri') ?? '';
    const challenge = params.get('code_challenge') ?? '';
    if (
      params.get('client_id') !== options.clientId ||
      params.get('response_type') !== 'code' ||
      params.get('code_challenge_method') !== 'S256' ||
      !/^[A-Za-z0-9_-]{43}$/.test(challenge) ||
      !params.get('state') ||
      !URL.canParse(redirectUri)
    ) {
      json(response, 400, { message: 'bad authorize request' });
      return;
    }
    const code = randomBytes(10).toString('hex');
    codes.set(code, {
      challenge,
      redirectUri,
      used: false,
      account,
      scope: (params.get('scope') ?? '').split(/[ ,]+/).filter(Boolean).join(','),
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', params.get('state') as string);
    response.writeHead(302, { location: back.toString() }).end();
  }

  async function exchange(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const [id, secret] = basicCredentials(request.headers.authorization);
    if (id !== options.clientId || secret !== options.clientSecret) {
      json(response, 200, { error: 'incorrect_client_credentials' });
      return;
    }
    const issued = codes.get(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    if (
      !issued ||
      issued.used ||
      issued.redirectUri !== form.get('redirect_uri') ||
      createHash('sha256').update(verifier).digest('base64url') !== issued.challenge
    ) {
      json(response, 200, { error: 'bad_verification_code' });
      return;
    }
    issued.used = true;
    const accessToken = `gho_${randomBytes(16).toString('hex')}`;
    accessTokens.add(accessToken);
    grants.set(accessToken, { account: issued.account, scope: issued.scope });
    json(response, 200, { access_token: accessToken, token_type: 'bearer', scope: issued.scope });
  }

  function grantOf(request: IncomingMessage, response: ServerResponse) {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const grant = grants.get(token);
    if (!grant) json(response, 401, { message: 'Bad credentials' });
    return grant;
  }

  function user(request: IncomingMessage, response: ServerResponse): void {
    const grant = grantOf(request, response);
    if (grant) json(response, 200, { id: grant.account.id, login: grant.account.login });
  }

  function membership(request: IncomingMessage, org: string, response: ServerResponse): void {
    const grant = grantOf(request, response);
    if (!grant) return;
    if (!grant.scope.split(',').includes('read:org')) {
      json(response, 403, { message: 'Resource not accessible: the read:org scope is needed' });
      return;
    }
    const state = orgMembers.get(org.toLowerCase())?.get(grant.account.login.toLowerCase());
    if (!state) {
      json(response, 404, { message: 'Not Found' });
      return;
    }
    json(response, 200, {
      url: `${baseUrl}/api/v3/orgs/${org}/memberships/${grant.account.login}`,
      state,
      role: 'member',
      organization_url: `${baseUrl}/api/v3/orgs/${org}`,
      organization: { login: org, id: 9000 + org.length },
      user: { login: grant.account.login, id: grant.account.id },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    apiBaseUrl: `${baseUrl}/api/v3`,
    accessTokens,
    requests,
    signInAs: (next) => {
      account = next;
    },
    setOrgMembership: (org, login, state) => {
      const members = orgMembers.get(org.toLowerCase()) ?? new Map();
      if (state === null) members.delete(login.toLowerCase());
      else members.set(login.toLowerCase(), state);
      orgMembers.set(org.toLowerCase(), members);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function basicCredentials(header: string | undefined): [string, string] {
  const encoded = /^Basic (.+)$/.exec(header ?? '')?.[1];
  if (!encoded) return ['', ''];
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? ['', ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}
