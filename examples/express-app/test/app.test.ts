import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStore, createTokenHasher } from '@covgate/core';
import { providerB } from '@covgate/webhook-signature';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const WEBHOOK_SECRET = 'whsec_provider_b_test';
const audit: string[] = [];
let server: Server;
let origin: string;

beforeAll(async () => {
  const app = createApp({
    store: createMemoryStore(),
    sessionSecret: 'test-session-secret-of-at-least-32-chars',
    serviceToken: 'test-service-token-of-at-least-32-chars',
    secureCookies: false,
    tokenHasher: createTokenHasher({ memoryCost: 1024, timeCost: 1 }),
    auditSink: { write: (line) => audit.push(line) },
    webhooks: { providers: [{ ...providerB, secret: WEBHOOK_SECRET }] },
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function postJson(path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

function providerBSignature(body: string, secret = WEBHOOK_SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

describe('the host application keeps its own routes', () => {
  it('serves its home page as HTML', async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('Hello from the todo app');
  });

  it('adds a todo through its own JSON parser and lists it, unicode intact', async () => {
    const created = await postJson(
      '/api/todos',
      JSON.stringify({ title: '  Écrire les tests ✓ 🚀 ' }),
    );
    expect(created.status).toBe(201);
    const todo = (await created.json()) as { id: number; title: string; done: boolean };
    expect(todo).toMatchObject({ title: 'Écrire les tests ✓ 🚀', done: false });

    const listed = await fetch(`${origin}/api/todos`);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { todos: unknown[] }).todos).toContainEqual(todo);
  });

  it.each([
    ['a number', '{"title":42}'],
    ['an empty title', '{"title":""}'],
    ['a blank title', '{"title":" \\t "}'],
    ['no title', '{}'],
    ['an array', '[{"title":"x"}]'],
    ['a title of 201 characters', JSON.stringify({ title: 'x'.repeat(201) })],
  ])('refuses a todo with %s with its own 400', async (_case, body) => {
    const response = await postJson('/api/todos', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'title must be 1-200 visible characters' });
  });

  it('answers malformed JSON on its own routes with its own 400, not covgate’s', async () => {
    const response = await postJson('/api/todos', '{"title":');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'Bad Request' });
    expect(response.headers.get('x-request-id')).toBeNull();
  });

  it.each(['/nope', '/coverage/nope', '/coverage/healthz', '/v1/executions', '/health'])(
    'answers %s with the host’s 404, not covgate’s',
    async (path) => {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ message: 'Not Found' });
      expect(response.headers.get('x-request-id')).toBeNull();
    },
  );
});

describe('covgate under /coverage', () => {
  it('answers its health check with X-Request-ID', async () => {
    const response = await fetch(`${origin}/coverage/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });

  it('refuses the executions feed without a token', async () => {
    const response = await fetch(`${origin}/coverage/v1/executions?org=acme&repo=web`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid token' });
    expect(audit).toContainEqual(
      expect.stringMatching(
        /^\[audit\] auth\.denied method=GET path=\/v1\/executions reason=missing_token remote=/,
      ),
    );
  });

  it('refuses internal session creation with a wrong service token', async () => {
    const response = await postJson(
      '/coverage/v1/sessions/create',
      '{"user_id":"u","org_id":"o"}',
      {
        authorization: 'Bearer test-service-token-of-at-least-32-chaRS',
      },
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid token' });
  });
});

describe('provider B webhooks through the host application', () => {
  const spaced = '{"id":"evt_1",  "event":"x"}';

  it('accepts a signature over the raw bytes, odd spacing included', async () => {
    const response = await postJson('/coverage/v1/webhooks/provider-b', spaced, {
      'x-provider-b-signature': providerBSignature(spaced),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
  });

  it('answers a replay of the same event as a duplicate', async () => {
    const response = await postJson('/coverage/v1/webhooks/provider-b', spaced, {
      'x-provider-b-signature': providerBSignature(spaced),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, duplicate: true });
  });

  it('refuses a signature made over the re-serialised body', async () => {
    const body = '{"id":"evt_2",  "event":"x"}';
    const reserialised = JSON.stringify(JSON.parse(body));
    const response = await postJson('/coverage/v1/webhooks/provider-b', body, {
      'x-provider-b-signature': providerBSignature(reserialised),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid signature' });
  });

  it('refuses a signature made with another secret', async () => {
    const body = '{"id":"evt_3","event":"x"}';
    const response = await postJson('/coverage/v1/webhooks/provider-b', body, {
      'x-provider-b-signature': providerBSignature(body, `${WEBHOOK_SECRET}x`),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'invalid signature' });
  });
});
