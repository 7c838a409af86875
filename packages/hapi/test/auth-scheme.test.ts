import { httpRequest } from '@covgate/test-support/http-client';
import Hapi from '@hapi/hapi';
import { afterEach, describe, expect, it } from 'vitest';
import { type CovgateAuthOptions, covgateAuthScheme } from '../src/index.js';
import { startHapi, stopAll } from './support.js';

afterEach(stopAll);

interface Identity {
  org_id: string;
  scopes: string[];
}

interface Seen {
  method: string;
  url: string;
  authorization: string | null;
  hasBody: boolean;
  remoteAddress: string | undefined;
}

/** An authenticate function that accepts one token and records what it was given. */
function fakeAuthenticate(
  seen: Seen[],
): Extract<CovgateAuthOptions<Identity>, { authenticate: unknown }>['authenticate'] {
  return async (request, context) => {
    seen.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.get('authorization'),
      hasBody: request.body !== null,
      remoteAddress: context.remoteAddress,
    });
    return request.headers.get('authorization') === 'Bearer cvg_good'
      ? { org_id: 'org_1', scopes: ['execute'] }
      : null;
  };
}

/** A server with covgate registered and host routes guarded by a `covgate` strategy. */
async function guardedServer(seen: Seen[]): Promise<string> {
  const { origin } = await startHapi({
    after: (server) => {
      server.auth.strategy('covgate', 'covgate', { authenticate: fakeAuthenticate(seen) });
      server.route({
        method: 'POST',
        path: '/reports',
        options: { auth: 'covgate' },
        handler: (request) => ({ credentials: request.auth.credentials }),
      });
      server.route({
        method: ['GET', 'TRACE'],
        path: '/maybe',
        options: { auth: { strategy: 'covgate', mode: 'try' } },
        handler: (request) => ({ authenticated: request.auth.isAuthenticated }),
      });
    },
  });
  return origin;
}

describe('covgate auth scheme', () => {
  it('puts the identity in request.auth.credentials', async () => {
    const seen: Seen[] = [];
    const origin = await guardedServer(seen);
    const response = await fetch(`${origin}/reports?week=12`, {
      method: 'POST',
      headers: { authorization: 'Bearer cvg_good', 'content-type': 'application/json' },
      body: '{"x":1}',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      credentials: { org_id: 'org_1', scopes: ['execute'] },
    });
  });

  it('gives authenticate the method, URL and headers, no body, and the peer address', async () => {
    const seen: Seen[] = [];
    const origin = await guardedServer(seen);
    await fetch(`${origin}/reports?week=12`, {
      method: 'POST',
      headers: { authorization: 'Bearer cvg_good' },
      body: '{"x":1}',
    });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: `${origin}/reports?week=12`,
        authorization: 'Bearer cvg_good',
        hasBody: false,
        remoteAddress: '127.0.0.1',
      },
    ]);
  });

  it.each([
    ['a wrong token', { authorization: 'Bearer cvg_bad' }],
    ['no token', {}],
    ['a token in the wrong case', { authorization: 'bearer CVG_GOOD' }],
  ])('answers 401 {"error":"invalid token"} to %s', async (_case, headers) => {
    const origin = await guardedServer([]);
    const response = await fetch(`${origin}/reports`, { method: 'POST', headers });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('{"error":"invalid token"}');
  });

  it('runs a try-mode route unauthenticated when there is no identity', async () => {
    const origin = await guardedServer([]);
    expect(await (await fetch(`${origin}/maybe`)).json()).toEqual({ authenticated: false });
    const good = await fetch(`${origin}/maybe`, { headers: { authorization: 'Bearer cvg_good' } });
    expect(await good.json()).toEqual({ authenticated: true });
  });

  it('treats a TRACE request, which it cannot represent, as unauthenticated', async () => {
    const seen: Seen[] = [];
    const origin = await guardedServer(seen);
    const response = await httpRequest(`${origin}/maybe`, {
      method: 'TRACE',
      headers: { authorization: 'Bearer cvg_good' },
    });
    expect(JSON.parse(response.body.toString())).toEqual({ authenticated: false });
    expect(seen).toHaveLength(0);
  });

  it('refuses a strategy without an authenticate function', () => {
    const server = Hapi.server();
    server.auth.scheme('covgate', covgateAuthScheme);
    expect(() => server.auth.strategy('covgate', 'covgate', {})).toThrow(/authenticate/);
  });
});
