import { type Echo, echoOf, FAKE_COOKIES, sign } from '@covgate/test-support/fake-core';
import { fetchToEnd, headerLines, httpRequest } from '@covgate/test-support/http-client';
import {
  expectPayloadTooLarge,
  postChunked,
  postZeros,
  zeroChunks,
} from '@covgate/test-support/uploads';
import { afterEach, describe, expect, it } from 'vitest';
import { covgatePlugin } from '../src/index.js';
import { startHapi, stopAll } from './support.js';

afterEach(stopAll);

describe('covgatePlugin: routing', () => {
  it('names itself and requires Hapi 21', () => {
    expect(covgatePlugin.name).toBe('@covgate/hapi');
    expect(covgatePlugin.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(covgatePlugin.requirements).toEqual({ hapi: '>=21.0.0' });
  });

  it('hands the core its own path, query, method, headers and exact body bytes under the prefix', async () => {
    const { origin } = await startHapi({ prefix: '/coverage' });
    const bytes = new Uint8Array([0x7b, 0xff, 0x00, 0xc3, 0x28, 0x7d]);
    const response = await fetch(`${origin}/coverage/v1/echo?org=acme&repo=caf%C3%A9`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-request-id': 'r-1' },
      body: bytes,
    });
    const echo = await echoOf(response);
    expect(echo.method).toBe('PUT');
    expect(echo.pathname).toBe('/v1/echo');
    expect(echo.search).toBe('?org=acme&repo=caf%C3%A9');
    expect(echo.headers['x-request-id']).toBe('r-1');
    expect(echo.headers['content-type']).toBe('application/json');
    expect(Buffer.from(echo.body!, 'base64')).toEqual(Buffer.from(bytes));
    expect(echo.remoteAddress).toBe('127.0.0.1');
  });

  it('hands the core a URL an onRequest extension rewrote, query included', async () => {
    const { origin } = await startHapi({
      prefix: '/coverage',
      before: (server) => {
        server.ext('onRequest', (request, h) => {
          if (request.path === '/coverage/old') request.setUrl('/coverage/v1/echo?moved=yes');
          return h.continue;
        });
      },
    });
    const echo = (await (await fetch(`${origin}/coverage/old?moved=no`)).json()) as Echo;
    expect(echo.pathname).toBe('/v1/echo');
    expect(echo.search).toBe('?moved=yes');
  });

  it('hands the core the path Hapi normalised, and no search for a bare question mark', async () => {
    const { origin } = await startHapi({ prefix: '/coverage' });
    const normalised = JSON.parse(
      (await httpRequest(`${origin}/coverage/v1/%65cho?x=%41`)).body.toString(),
    ) as Echo;
    expect(normalised.pathname).toBe('/v1/echo');
    expect(normalised.search).toBe('?x=%41');
    const bare = JSON.parse(
      (await httpRequest(`${origin}/coverage/v1/echo?`)).body.toString(),
    ) as Echo;
    expect(bare.pathname).toBe('/v1/echo');
    expect(bare.search).toBe('');
  });

  it('serves /health at the root without a prefix', async () => {
    const { origin } = await startHapi();
    const echo = (await (await fetch(`${origin}/health`)).json()) as Echo;
    expect(echo.pathname).toBe('/health');
    expect(echo.body).toBeNull();
  });

  it('gives a POST without a body no body', async () => {
    const { origin } = await startHapi();
    const echo = (await (await fetch(`${origin}/v1/echo`, { method: 'POST' })).json()) as Echo;
    expect(echo.body).toBeNull();
  });

  it('leaves paths that are not covgate paths to Hapi', async () => {
    const { origin, core } = await startHapi({ prefix: '/coverage' });
    expect(await (await fetch(`${origin}/other`)).json()).toEqual({ host: 'other' });
    expect((await fetch(`${origin}/coverage/other`)).status).toBe(404);
    expect((await fetch(`${origin}/health`)).status).toBe(404);
    expect(core.seen).toHaveLength(0);
  });

  it('answers every path under the prefix when exclusive, leaving more specific host routes', async () => {
    const { origin, core } = await startHapi({
      prefix: '/coverage',
      plugin: { exclusive: true },
      after: (server) => {
        server.route({ method: 'GET', path: '/coverage/mine', handler: () => ({ host: 'mine' }) });
      },
    });
    const response = await fetch(`${origin}/coverage/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not found' });
    expect(new URL(core.seen[0]!.url).pathname).toBe('/nope');
    expect(await (await fetch(`${origin}/coverage/mine`)).json()).toEqual({ host: 'mine' });
    expect(((await (await fetch(`${origin}/coverage/v1/echo`)).json()) as Echo).pathname).toBe(
      '/v1/echo',
    );
  });

  it('lets the core answer 404 for unknown paths under its own prefixes', async () => {
    const { origin } = await startHapi({ prefix: '/coverage' });
    const response = await fetch(`${origin}/coverage/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not found' });
  });

  it('lets the core answer preflight requests', async () => {
    const { origin, core } = await startHapi();
    const response = await fetch(`${origin}/v1/echo`, {
      method: 'OPTIONS',
      headers: { origin: 'https://dash.example', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(200);
    expect(core.seen[0]!.method).toBe('OPTIONS');
  });

  it('answers 405 to TRACE', async () => {
    const { origin, core } = await startHapi();
    const response = await httpRequest(`${origin}/v1/echo`, { method: 'TRACE' });
    expect(response.status).toBe(405);
    expect(JSON.parse(response.body.toString())).toEqual({ error: 'method not allowed' });
    expect(core.seen).toHaveLength(0);
  });

  it('is not guarded by the default auth strategy of the server', async () => {
    const { origin } = await startHapi({
      before: (server) => {
        server.auth.scheme('deny-all', () => ({
          authenticate: () => {
            throw new Error('host auth ran');
          },
        }));
        server.auth.strategy('host', 'deny-all');
        server.auth.default('host');
      },
    });
    expect((await fetch(`${origin}/other`)).status).toBe(500);
    expect((await fetch(`${origin}/health`)).status).toBe(200);
  });

  it('forwards a malformed Cookie header instead of failing on it', async () => {
    const { origin } = await startHapi();
    const response = await fetch(`${origin}/v1/echo`, {
      headers: { cookie: 'a="unterminated; ;=;' },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Echo).headers.cookie).toBe('a="unterminated; ;=;');
  });
});

describe('covgatePlugin: responses', () => {
  it('keeps the headers the core chose, adding no charset and no Cache-Control', async () => {
    const { origin } = await startHapi();
    const response = await fetch(`${origin}/v1/echo`);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toBe('req-1');
    expect(response.headers.get('cache-control')).toBeNull();
  });

  it('sends each Set-Cookie as its own header line', async () => {
    const { origin } = await startHapi();
    const response = await httpRequest(`${origin}/v1/cookies`);
    expect(headerLines(response.rawHeaders, 'set-cookie')).toEqual(FAKE_COOKIES);
  });

  it.each([200, 204])('keeps an empty %i as it is', async (status) => {
    const { origin } = await startHapi();
    const response = await fetch(`${origin}/v1/empty?status=${status}`);
    expect(response.status).toBe(status);
    expect(await response.text()).toBe('');
  });

  it('streams a large response intact', async () => {
    const { origin } = await startHapi();
    const response = await fetch(`${origin}/v1/stream?chunks=64&size=65536`);
    const received = new Uint8Array(await response.arrayBuffer());
    expect(received.byteLength).toBe(64 * 65536);
    expect(received[63 * 65536]).toBe(63);
  });

  it('stops the response stream when the client goes away', async () => {
    const { origin, core } = await startHapi();
    const controller = new AbortController();
    // Uncompressed, so the first chunk is not held in Hapi's gzip buffer.
    const response = await fetch(`${origin}/v1/stalled`, {
      signal: controller.signal,
      headers: { 'accept-encoding': 'identity' },
    });
    await response.body!.getReader().read();
    controller.abort();
    await core.responseCancelled.happened;
    expect((await fetch(`${origin}/health`)).status).toBe(200);
  });
});

describe('covgatePlugin: bodies', () => {
  it('keeps raw bytes for webhook signatures', async () => {
    const { origin } = await startHapi({ prefix: '/coverage' });
    const payload = '{"a":1,  "b":"\\u00e9"}';
    const response = await fetch(`${origin}/coverage/v1/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': sign(payload) },
      body: payload,
    });
    expect(response.status).toBe(200);
  });

  it('accepts a body of exactly the limit', async () => {
    const { origin } = await startHapi({ plugin: { maxBodyBytes: 16 } });
    const response = await fetch(`${origin}/v1/echo`, { method: 'POST', body: 'x'.repeat(16) });
    expect(response.status).toBe(200);
  });

  it('answers covgate 413 instead of Hapi 413 one byte over the limit', async () => {
    const { origin, core } = await startHapi({ plugin: { maxBodyBytes: 16 } });
    const response = await fetch(`${origin}/v1/echo`, { method: 'POST', body: 'x'.repeat(17) });
    await expectPayloadTooLarge(response);
    expect(core.seen).toHaveLength(1);
  });

  it('answers covgate 413 when a chunked upload goes over the limit', async () => {
    const { origin } = await startHapi({ plugin: { maxBodyBytes: 16 } });
    await expectPayloadTooLarge(await postChunked(`${origin}/v1/echo`, zeroChunks(3, 10)));
  });

  it('answers a 4 MiB upload with 413 under the default limit and keeps serving', async () => {
    const { origin } = await startHapi();
    const response = await postZeros(`${origin}/v1/echo`, 4 * 1024 * 1024);
    await expectPayloadTooLarge(response);
    expect((await fetch(`${origin}/health`)).status).toBe(200);
  });
});

describe('covgatePlugin: failures', () => {
  it('answers exactly {"error":"internal error"} when the API throws, and reports the cause', async () => {
    const { origin, errors } = await startHapi();
    const response = await fetch(`${origin}/v1/throw`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"internal error"}');
    expect(errors).toEqual([
      expect.objectContaining({ message: expect.stringContaining('hunter2') }),
    ]);
  });

  it('cuts the connection and reports when the response body fails midway', async () => {
    const { origin, errors } = await startHapi();
    expect(await fetchToEnd(`${origin}/v1/broken`)).toBe('cut');
    expect(errors).toEqual([expect.objectContaining({ message: 'storage went away' })]);
    expect((await fetch(`${origin}/health`)).status).toBe(200);
  });
});
