import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake token endpoint behaves. */
export type TokenMode = 'ok' | 'status-500' | 'error-json-400' | 'hang';
/** How the fake user endpoint behaves. */
export type UserMode = 'ok' | 'status-401' | 'malformed' | 'hang';

/** A text that must never leave the code host's answers into covgate's answers or logs. */
export const LEAK_MARKER = 'CODE-HOST-INTERNAL-DETAIL-7f3a';

export const CLIENT_ID = 'Iv1.fakeclient';
export const CLIENT_SECRET = 'fake-client-secret-9c41d7e2';
export const ACCOUNT = { id: 4242, login: 'octo-cat' };

interface IssuedCode {
  challenge: string;
  redirectUri: string;
  used: boolean;
}

/**
 * A local stand-in for GitHub's OAuth endpoints over real HTTP: `authorize` redirects back
 * with a code bound to the S256 challenge, `access_token` checks the client credentials, the
 * code (single use), the redirect URI and that the verifier hashes to the challenge, answering
 * refusals the GitHub way (`200 {"error":...}`), and `/api/v3/user` returns one account.
 */
export interface FakeCodeHost {
  baseUrl: string;
  authorizeUrl: string;
  tokenUrl: string;
  apiBaseUrl: string;
  tokenMode: TokenMode;
  userMode: UserMode;
  /** When set, `authorize` redirects back with `?error=<value>` instead of a code. */
  authorizeError: string | null;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeCodeHost(): Promise<FakeCodeHost> {
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Set<string>();
  const host = { requests: [] as string[] } as FakeCodeHost;
  Object.assign(host, { tokenMode: 'ok', userMode: 'ok', authorizeError: null });

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    host.requests.push(url.pathname);
    if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      authorize(url, response);
    } else if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      void exchange(request, response);
    } else if (request.method === 'GET' && url.pathname === '/api/v3/user') {
      user(request, response);
    } else {
      json(response, 404, { message: 'Not Found' });
    }
  });

  function authorize(url: URL, response: ServerResponse): void {
    const params = url.searchParams;
    const redirectUri = params.get('redirect_uri') ?? '';
    const back = new URL(redirectUri);
    back.searchParams.set('state', params.get('state') ?? '');
    if (host.authorizeError !== null) {
      back.searchParams.set('error', host.authorizeError);
      back.searchParams.set('error_description', LEAK_MARKER);
    } else {
      if (
        params.get('client_id') !== CLIENT_ID ||
        params.get('response_type') !== 'code' ||
        params.get('code_challenge_method') !== 'S256' ||
        !params.get('code_challenge')
      ) {
        json(response, 400, { error: 'bad authorize request' });
        return;
      }
      const code = randomBytes(10).toString('hex');
      codes.set(code, {
        challenge: params.get('code_challenge') as string,
        redirectUri,
        used: false,
      });
      back.searchParams.set('code', code);
    }
    response.writeHead(302, { location: back.toString() }).end();
  }

  async function exchange(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    if (host.tokenMode === 'hang') return;
    if (host.tokenMode === 'status-500') {
      response.writeHead(500, { 'content-type': 'text/html' }).end(`<h1>${LEAK_MARKER}</h1>`);
      return;
    }
    if (host.tokenMode === 'error-json-400') {
      json(response, 400, {
        error: 'incorrect_client_credentials',
        error_description: LEAK_MARKER,
      });
      return;
    }
    const [id, secret] = basicCredentials(request.headers.authorization);
    if (id !== CLIENT_ID || secret !== CLIENT_SECRET) {
      json(response, 200, {
        error: 'incorrect_client_credentials',
        error_description: LEAK_MARKER,
      });
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
      json(response, 200, { error: 'bad_verification_code', error_description: LEAK_MARKER });
      return;
    }
    issued.used = true;
    const accessToken = `gho_${randomBytes(16).toString('hex')}`;
    accessTokens.add(accessToken);
    json(response, 200, { access_token: accessToken, token_type: 'bearer', scope: 'read:user' });
  }

  function user(request: IncomingMessage, response: ServerResponse): void {
    if (host.userMode === 'hang') return;
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (host.userMode === 'status-401' || !accessTokens.has(token)) {
      json(response, 401, { message: `Bad credentials ${LEAK_MARKER}` });
      return;
    }
    if (host.userMode === 'malformed') {
      json(response, 200, { id: '4242', login: '' });
      return;
    }
    json(response, 200, { ...ACCOUNT, name: LEAK_MARKER });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return Object.assign(host, {
    baseUrl,
    authorizeUrl: `${baseUrl}/login/oauth/authorize`,
    tokenUrl: `${baseUrl}/login/oauth/access_token`,
    apiBaseUrl: `${baseUrl}/api/v3`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
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
  const at = decoded.indexOf(':');
  return at < 0 ? ['', ''] : [decoded.slice(0, at), decoded.slice(at + 1)];
}
