import { createHmac } from 'node:crypto';
import { createMemoryStore, createTokenHasher, type Store } from '@covgate/core';
import { buildOrganisation } from '@covgate/testing';
import { providerB } from '@covgate/webhook-signature';
import type { Server } from '@hapi/hapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppOptions, createApp } from '../src/app.js';

const SERVICE_TOKEN = 'test-service-token-of-at-least-32-chars';
const WEBHOOK_SECRET = 'whsec_provider_b_test';
const servers: Server[] = [];

interface RunningApp {
  origin: string;
  store: Store;
}

async function startApp(overrides: Partial<AppOptions> = {}): Promise<RunningApp> {
  const store = createMemoryStore();
  const server = await createApp({
    host: '127.0.0.1',
    port: 0,
    store,
    sessionSecret: 'test-session-secret-of-at-least-32-chars',
    serviceToken: SERVICE_TOKEN,
    secureCookies: false,
    tokenHasher: createTokenHasher({ memoryCost: 1024, timeCost: 1 }),
    auditSink: { write: () => {} },
    webhooks: { providers: [{ ...providerB, secret: WEBHOOK_SECRET }] },
    ...overrides,
  });
  servers.push(server);
  await server.start();
  return { origin: server.info.uri, store };
}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop({ timeout: 0 })));
});

function postJson(
  origin: string,
  path: string,
  body: string,
  headers: Record<string, string> = {},
) {
  return fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

interface IssuedToken {
  orgSlug: string;
  sessionToken: string;
  tokenId: string;
  secret: string;
}

/**
 * The way a dashboard gets an API token: an organisation in the store, a session through
 * the service token, then `POST /v1/tokens` with that session.
 */
async function issueApiToken({ origin, store }: RunningApp, orgSlug: string): Promise<IssuedToken> {
  const org = buildOrganisation({ slug: orgSlug });
  await store.createOrganisation(org);
  const session = await postJson(
    origin,
    '/coverage/v1/sessions/create',
    JSON.stringify({ user_id: 'usr_test', org_id: org.id }),
    { authorization: `Bearer ${SERVICE_TOKEN}` },
  );
  expect(session.status).toBe(201);
  const { token: sessionToken } = (await session.json()) as { token: string };
  const created = await postJson(origin, '/coverage/v1/tokens', '{"name":"ci"}', {
    authorization: `Bearer ${sessionToken}`,
  });
  expect(created.status).toBe(201);
  const { id, secret } = (await created.json()) as { id: string; secret: string };
  return { orgSlug, sessionToken, tokenId: id, secret };
}

function me(origin: string, authorization?: string) {
  return fetch(
    `${origin}/api/me`,
    authorization === undefined ? {} : { headers: { authorization } },
  );
}

let app: RunningApp;
let issued: IssuedToken;

beforeAll(async () => {
  app = await startApp();
  issued = await issueApiToken(app, 'acme');
});

describe('the host application keeps its own routes', () => {
  it('serves its home page as HTML', async () => {
    const response = await fetch(`${app.origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('Hello from the todo app');
  });

  it('adds a todo through Hapi’s payload parsing and lists it, unicode intact', async () => {
    const created = await postJson(
      app.origin,
      '/api/todos',
      JSON.stringify({ title: '  Écrire les tests ✓ 🚀 ' }),
    );
    expect(created.status).toBe(201);
    const todo = (await created.json()) as { id: number; title: string; done: boolean };
    expect(todo).toMatchObject({ title: 'Écrire les tests ✓ 🚀', done: false });

    const listed = await fetch(`${app.origin}/api/todos`);
    expect(((await listed.json()) as { todos: unknown[] }).todos).toContainEqual(todo);
  });

  it.each([
    ['a number', '{"title":42}'],
    ['a blank title', '{"title":" \\t "}'],
    ['no title', '{}'],
    ['an array', '[{"title":"x"}]'],
    ['a title of 201 characters', JSON.stringify({ title: 'x'.repeat(201) })],
  ])('refuses a todo with %s with its own 400', async (_case, body) => {
    const response = await postJson(app.origin, '/api/todos', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'title must be 1-200 visible characters',
    });
  });

  it('answers malformed JSON on its own routes with Hapi’s 400, not covgate’s', async () => {
    const response = await postJson(app.origin, '/api/todos', '{"title":');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(response.headers.get('x-request-id')).toBeNull();
  });

  it.each(['/nope', '/coverage/nope', '/v1/executions', '/health'])(
    'answers %s with Hapi’s 404, not covgate’s',
    async (path) => {
      const response = await fetch(`${app.origin}${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        statusCode: 404,
        error: 'Not Found',
        message: 'Not Found',
      });
      expect(response.headers.get('x-request-id')).toBeNull();
    },
  );
});

describe('covgate under /coverage', () => {
  it('answers its health check with X-Request-ID', async () => {
    const response = await fetch(`${app.origin}/coverage/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('refuses the executions feed without a token', async () => {
    const response = await fetch(`${app.origin}/coverage/v1/executions?org=acme&repo=web`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid token' });
  });

  it('serves the executions feed to the API token it issued', async () => {
    const response = await fetch(`${app.origin}/coverage/v1/executions?org=acme&repo=web`, {
      headers: { authorization: `Bearer ${issued.secret}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ executions: [], total: 0 });
  });

  it('accepts a provider B webhook signed over raw bytes with odd spacing', async () => {
    const body = '{"id":"evt_1",  "event":"x"}';
    const response = await postJson(app.origin, '/coverage/v1/webhooks/provider-b', body, {
      'x-provider-b-signature': createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex'),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
  });
});

describe('GET /api/me, a host route guarded by covgate API tokens', () => {
  it('answers with the organisation of a valid API token', async () => {
    const response = await me(app.origin, `Bearer ${issued.secret}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      org: 'acme',
      org_id: expect.stringMatching(/^org_/),
      scopes: ['execute'],
    });
  });

  it('refuses a request without a token with covgate’s 401', async () => {
    const response = await me(app.origin);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid token' });
  });

  it.each([
    ['a wrong secret', () => `Bearer ${issued.secret.slice(0, -8)}00000000`],
    ['an upper-case token', () => `Bearer ${issued.secret.toUpperCase()}`],
    ['a token one character short', () => `Bearer ${issued.secret.slice(0, -1)}`],
    ['a Basic credential', () => `Basic ${Buffer.from(`x:${issued.secret}`).toString('base64')}`],
    ['an empty Bearer', () => 'Bearer '],
  ])('refuses %s with covgate’s 401', async (_case, authorization) => {
    const response = await me(app.origin, authorization());
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid token' });
  });

  it('refuses a token as soon as it is revoked', async () => {
    const token = await issueApiToken(app, 'revoked-co');
    expect((await me(app.origin, `Bearer ${token.secret}`)).status).toBe(200);

    const revoked = await fetch(`${app.origin}/coverage/v1/tokens/${token.tokenId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token.sessionToken}` },
    });
    expect(revoked.status).toBe(204);

    const response = await me(app.origin, `Bearer ${token.secret}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid token' });
  });

  it('passes on covgate’s 429 and Retry-After when the token is over its rate limit', async () => {
    const limited = await startApp({ rateLimit: { limits: { free: 1 } } });
    const token = await issueApiToken(limited, 'busy-co');
    expect((await me(limited.origin, `Bearer ${token.secret}`)).status).toBe(200);

    const response = await me(limited.origin, `Bearer ${token.secret}`);
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({ error: 'rate limit exceeded' });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(response.headers.get('ratelimit-remaining')).toBe('0');
  });
});
