import { describe, expect, it } from 'vitest';
import {
  CovgateApiError,
  type CovgateClientOptions,
  CovgateNetworkError,
  createCovgateClient,
} from '../src/index.js';
import { json, recordingSleep, rejection, scriptedFetch, text } from './support.js';

const TOKEN = `cvg_${'ab'.repeat(20)}`;
const RUN = {
  id: 'exe_01jd0000000000000000000000',
  repo: 'web',
  branch: 'main',
  outcome: 'pass',
  delta: '0.00',
  coverage: 84.13,
  commit: null,
  created_at: '2026-11-22T12:00:00Z',
};

function setup(
  script: Parameters<typeof scriptedFetch>[0],
  options: Partial<CovgateClientOptions> = {},
) {
  const { fetch, seen } = scriptedFetch(script);
  const { sleep, delays } = recordingSleep();
  const client = createCovgateClient({
    baseUrl: 'https://covgate.example.com/api/',
    token: TOKEN,
    fetch,
    sleep,
    random: () => 0.5,
    ...options,
  });
  return { client, seen, delays };
}

describe('requests', () => {
  it('sends the token, extra headers and JSON body to the base URL without its trailing slash', async () => {
    const { client, seen } = setup([json(201, RUN)], {
      headers: { 'X-Request-ID': 'ci-42' },
    });
    const run = await client.createExecution({
      body: { repo: 'web', branch: 'main', coverage: 84.13 },
      idempotencyKey: 'key-1',
    });
    expect(run).toEqual(RUN);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: 'https://covgate.example.com/api/v1/executions',
      body: '{"repo":"web","branch":"main","coverage":84.13}',
    });
    expect(seen[0]?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'idempotency-key': 'key-1',
      'x-request-id': 'ci-42',
    });
  });

  it('generates a UUID v4 idempotency key when none is given', async () => {
    const { client, seen } = setup([json(201, RUN), json(201, RUN)]);
    await client.createExecution({ body: { repo: 'web', branch: 'main', coverage: 1 } });
    await client.createExecution({ body: { repo: 'web', branch: 'main', coverage: 1 } });
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(keys[1]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('puts query parameters, path parameters and no body where the route wants them', async () => {
    const { client, seen } = setup([
      json(200, { executions: [], total: 0, next_cursor: null }),
      json(200, { repos: [] }),
      new Response(null, { status: 204 }),
      json(200, { valid: true }),
      json(200, { points: [['2026-11-22T19:03:41Z', 84.13, 'pass', 'main', '0.00']], total: 1 }),
    ]);
    expect(
      await client.listExecutions({ org: 'acme', repo: 'a b/c', cursor: '', limit: 5 }),
    ).toEqual({ executions: [], total: 0, next_cursor: null });
    expect(await client.listRepositories({ org: 'acme' })).toEqual({ repos: [] });
    expect(await client.revokeToken({ id: 'f'.repeat(32) })).toBeUndefined();
    await client.validateToken();
    expect(await client.getExecutionSeries({ org: 'acme', repo: 'web', limit: 1000 })).toEqual({
      points: [['2026-11-22T19:03:41Z', 84.13, 'pass', 'main', '0.00']],
      total: 1,
    });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET https://covgate.example.com/api/v1/executions?org=acme&repo=a%20b%2Fc&cursor=&limit=5',
      'GET https://covgate.example.com/api/v1/repos?org=acme',
      `DELETE https://covgate.example.com/api/v1/tokens/${'f'.repeat(32)}`,
      'POST https://covgate.example.com/api/v1/auth/validate',
      'GET https://covgate.example.com/api/v1/executions/series?org=acme&repo=web&limit=1000',
    ]);
    expect(seen[3]?.body).toBe('');
    expect(seen[3]?.headers['content-type']).toBeUndefined();
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('asks for a repository headline with its component and filters runs by branch, outcome and component', async () => {
    const headline = {
      repo: 'web',
      component: 'api',
      base_branch: null,
      current: null,
      change_30d: null,
      last_failure: null,
      components: ['api'],
      web_url: null,
    };
    const { client, seen } = setup([
      json(200, headline),
      json(200, { executions: [], total: 0, next_cursor: null }),
    ]);
    expect(await client.getRepoHeadline({ org: 'acme', repo: 'web', component: 'api' })).toEqual(
      headline,
    );
    await client.listExecutions({
      org: 'acme',
      repo: 'web',
      branch: 'feat/x',
      outcome: 'fail',
      component: '',
    });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET https://covgate.example.com/api/v1/repos/headline?org=acme&repo=web&component=api',
      'GET https://covgate.example.com/api/v1/executions?org=acme&repo=web&branch=feat%2Fx&outcome=fail&component=',
    ]);
  });

  it('returns the badge as SVG text and builds badge URLs without a request', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"></svg>';
    const { client, seen } = setup([text(200, svg, 'image/svg+xml')]);
    expect(await client.getBadge({ org: 'acme', repo: 'web', branch: 'feature/x' })).toBe(svg);
    expect(seen[0]?.url).toBe(
      'https://covgate.example.com/api/v1/badge/acme/web?branch=feature%2Fx',
    );
    expect(client.badgeUrl({ org: 'acme', repo: 'mono/web', branch: 'main', precision: '1' })).toBe(
      'https://covgate.example.com/api/v1/badge/acme/mono%2Fweb?branch=main&precision=1',
    );
    expect(seen).toHaveLength(1);
  });

  it('builds the OAuth login URL under the base URL without a request', () => {
    const { client, seen } = setup([]);
    expect(client.loginUrl({ codeHost: 'github' })).toBe(
      'https://covgate.example.com/api/auth/github',
    );
    expect(client.loginUrl({ codeHost: 'git/lab?x' })).toBe(
      'https://covgate.example.com/api/auth/git%2Flab%3Fx',
    );
    const root = createCovgateClient({ baseUrl: 'http://localhost:8080' });
    expect(root.loginUrl({ codeHost: 'github' })).toBe('http://localhost:8080/auth/github');
    // A same-origin client in a browser: a path the browser resolves against the page.
    const sameOrigin = createCovgateClient({ baseUrl: '/', credentials: 'same-origin' });
    expect(sameOrigin.loginUrl({ codeHost: 'github' })).toBe('/auth/github');
    expect(seen).toHaveLength(0);
  });

  it('passes credentials for cookie sessions and sends no Authorization without a token', async () => {
    const { fetch, seen } = scriptedFetch([json(200, { status: 'ok' })]);
    const client = createCovgateClient({
      baseUrl: 'https://covgate.example.com',
      fetch,
      credentials: 'include',
    });
    expect(await client.getHealth()).toEqual({ status: 'ok' });
    expect(seen[0]?.credentials).toBe('include');
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('sets the User-Agent in Node when asked', async () => {
    const { client, seen } = setup([json(200, { status: 'ok' })], {
      userAgent: 'covgate-cli/1.2.3',
    });
    await client.getHealth();
    expect(seen[0]?.headers['user-agent']).toBe('covgate-cli/1.2.3');
  });
});

describe('errors', () => {
  it('throws CovgateApiError with the status, the error message and the request id', async () => {
    const { client } = setup([json(401, { error: 'invalid token' }, { 'X-Request-ID': 'req-7' })]);
    const error = await rejection(client.listTokens());
    expect(error).toBeInstanceOf(CovgateApiError);
    expect(error).toMatchObject({
      name: 'CovgateApiError',
      status: 401,
      error: 'invalid token',
      requestId: 'req-7',
      retryAfterSeconds: null,
      message: '401 invalid token (request req-7)',
    });
  });

  it('says "HTTP <status>" when the body is not the API error shape, and leaves out an absent request id', async () => {
    const { client } = setup([text(502, '<html>Bad gateway</html>', 'text/html')]);
    const error = await rejection(client.createToken({ body: { name: 'ci' } }));
    expect(error).toMatchObject({
      status: 502,
      error: 'HTTP 502',
      requestId: null,
      message: '502 HTTP 502',
    });
  });

  it('never puts the token in an error message', async () => {
    const { client } = setup([json(403, { error: 'forbidden' }), new TypeError('fetch failed')], {
      retry: { retries: 0 },
    });
    const api = (await rejection(client.listTokens())) as Error;
    const network = (await rejection(client.getToken({ id: 'x' }))) as Error;
    for (const error of [api, network]) {
      expect(error.message).not.toContain(TOKEN);
      expect(error.message).not.toContain('ab'.repeat(20));
      expect(String(error)).not.toContain(TOKEN);
      expect(JSON.stringify(error)).not.toContain(TOKEN);
    }
  });

  it('throws CovgateNetworkError naming only the origin, with the platform error as cause', async () => {
    const cause = new TypeError('fetch failed');
    const { client } = setup([cause], { retry: { retries: 0 } });
    const error = await rejection(client.listExecutions({ org: 'acme', repo: 'secret-repo' }));
    expect(error).toBeInstanceOf(CovgateNetworkError);
    expect(error).toMatchObject({
      name: 'CovgateNetworkError',
      message: 'could not reach https://covgate.example.com',
      origin: 'https://covgate.example.com',
    });
    expect((error as Error).cause).toBe(cause);
  });
});

describe('retries', () => {
  it('retries a GET on 5xx twice by default with exponential back-off and jitter, then throws the last error', async () => {
    const { client, seen, delays } = setup(
      [
        json(503, { error: 'not ready' }),
        json(500, { error: 'internal error' }),
        json(502, { error: 'bad' }),
      ],
      { random: () => 0.25 },
    );
    const error = await rejection(client.getReadiness());
    expect(error).toMatchObject({ status: 502, error: 'bad' });
    expect(seen).toHaveLength(3);
    // 200 ms then 400 ms ceilings, half fixed plus a quarter of the other half.
    expect(delays).toEqual([125, 250]);
  });

  it('stops retrying at the first success', async () => {
    const { client, seen, delays } = setup([
      json(500, { error: 'internal error' }),
      json(200, { status: 'ready' }),
    ]);
    expect(await client.getReadiness()).toEqual({ status: 'ready' });
    expect(seen).toHaveLength(2);
    expect(delays).toEqual([150]);
  });

  it('caps the back-off at maxDelayMs and honours the retries option', async () => {
    const { client, seen, delays } = setup(
      Array.from({ length: 5 }, () => json(500, { error: 'internal error' })),
      { retry: { retries: 4, minDelayMs: 1000, maxDelayMs: 3000 }, random: () => 0.999 },
    );
    await rejection(client.listTokens());
    expect(seen).toHaveLength(5);
    expect(delays).toEqual([1000, 1999, 2999, 2999]);
  });

  it('retries network errors of idempotent calls, then throws CovgateNetworkError', async () => {
    const { client, seen, delays } = setup([
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
    ]);
    const error = await rejection(client.revokeToken({ id: 'f'.repeat(32) }));
    expect(error).toBeInstanceOf(CovgateNetworkError);
    expect(seen.map((s) => s.method)).toEqual(['DELETE', 'DELETE', 'DELETE']);
    expect(delays).toEqual([150, 300]);
  });

  it('does not retry a POST without an idempotency key on 5xx or a network error', async () => {
    const { client, seen, delays } = setup([
      json(500, { error: 'internal error' }),
      new TypeError('fetch failed'),
      json(500, { error: 'internal error' }),
    ]);
    expect(await rejection(client.createToken({ body: { name: 'ci' } }))).toMatchObject({
      status: 500,
    });
    expect(await rejection(client.createOrganisation({ body: { slug: 'acme' } }))).toBeInstanceOf(
      CovgateNetworkError,
    );
    expect(
      await rejection(client.updateToken({ id: 'a'.repeat(32), body: { name: 'x' } })),
    ).toMatchObject({
      status: 500,
    });
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST', 'PATCH']);
    expect(delays).toEqual([]);
  });

  it('retries createExecution on 5xx and network errors with the same idempotency key and body', async () => {
    const { client, seen, delays } = setup([
      json(503, { error: 'internal error' }),
      new TypeError('socket hang up'),
      json(201, RUN),
    ]);
    expect(
      await client.createExecution({ body: { repo: 'web', branch: 'main', coverage: 84.13 } }),
    ).toEqual(RUN);
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect(seen.map((s) => s.body)).toEqual(
      Array(3).fill('{"repo":"web","branch":"main","coverage":84.13}'),
    );
    expect(delays).toEqual([150, 300]);
  });

  it('does not retry 4xx answers other than 429', async () => {
    const { client, seen } = setup([json(404, { error: 'not found' })]);
    expect(await rejection(client.getToken({ id: 'x' }))).toMatchObject({
      status: 404,
      error: 'not found',
    });
    expect(seen).toHaveLength(1);
  });

  it('waits exactly Retry-After on 429, for any call, POSTs included', async () => {
    const { client, seen, delays } = setup([
      json(429, { error: 'rate limit exceeded' }, { 'Retry-After': '3' }),
      json(200, { valid: true }),
    ]);
    expect(await client.validateToken()).toEqual({ valid: true });
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);
    expect(delays).toEqual([3000]);
  });

  it('gives up at once with the 429 error when Retry-After is longer than maxDelayMs', async () => {
    const { client, seen, delays } = setup([
      json(429, { error: 'rate limit exceeded' }, { 'Retry-After': '6', 'X-Request-ID': 'r1' }),
    ]);
    const error = await rejection(client.listExecutions({ org: 'acme', repo: 'web' }));
    expect(error).toMatchObject({
      status: 429,
      error: 'rate limit exceeded',
      retryAfterSeconds: 6,
      message: '429 rate limit exceeded (request r1)',
    });
    expect(seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('throws the last 429 when Retry-After keeps answering past the retries', async () => {
    const limited = () => json(429, { error: 'rate limit exceeded' }, { 'Retry-After': '1' });
    const { client, seen, delays } = setup([limited, limited, limited]);
    expect(await rejection(client.listRepositories({ org: 'acme' }))).toMatchObject({
      status: 429,
      retryAfterSeconds: 1,
    });
    expect(seen).toHaveLength(3);
    expect(delays).toEqual([1000, 1000]);
  });

  it('uses the back-off for a 429 without a readable Retry-After', async () => {
    const { client, delays } = setup([
      json(429, { error: 'rate limit exceeded' }, { 'Retry-After': 'soon' }),
      json(200, { tokens: [] }),
    ]);
    expect(await client.listTokens()).toEqual({ tokens: [] });
    expect(delays).toEqual([150]);
  });

  it('reports each retry to onRetry', async () => {
    const events: unknown[] = [];
    const { client } = setup(
      [
        json(429, { error: 'rate limit exceeded' }, { 'Retry-After': '2' }),
        new TypeError('x'),
        json(200, { status: 'ok' }),
      ],
      { onRetry: (event) => events.push(event) },
    );
    await client.getHealth();
    expect(events).toEqual([
      { retry: 1, delayMs: 2000, method: 'GET', status: 429 },
      { retry: 2, delayMs: 300, method: 'GET', status: null },
    ]);
  });

  it('makes one attempt with retries: 0', async () => {
    const { client, seen } = setup([json(503, { error: 'not ready' })], { retry: { retries: 0 } });
    expect(await rejection(client.getReadiness())).toMatchObject({
      status: 503,
      error: 'not ready',
    });
    expect(seen).toHaveLength(1);
  });

  it('stops waiting and rejects with the abort reason when the signal aborts', async () => {
    const controller = new AbortController();
    const { fetch, seen } = scriptedFetch([json(500, { error: 'internal error' })]);
    const client = createCovgateClient({
      baseUrl: 'https://covgate.example.com',
      fetch,
      retry: { minDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    const pending = rejection(client.listTokens({ signal: controller.signal }));
    // Aborts during the minute's wait after the first answer, not before the first request.
    await expect.poll(() => seen.length).toBe(1);
    controller.abort(new Error('user cancelled'));
    const error = await pending;
    expect(error).toEqual(new Error('user cancelled'));
    expect(seen).toHaveLength(1);
  });
});
