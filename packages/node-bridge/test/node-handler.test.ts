import {
  createFakeCore,
  type Echo,
  echoOf,
  FAKE_COOKIES,
  type FakeCore,
  type FetchApi,
} from '@covgate/test-support/fake-core';
import { fetchToEnd, headerLines, httpRequest } from '@covgate/test-support/http-client';
import { listenForTest, type RunningServer } from '@covgate/test-support/http-server';
import {
  expectPayloadTooLarge,
  postChunked,
  postZeros,
  zeroChunks,
} from '@covgate/test-support/uploads';
import { describe, expect, it, vi } from 'vitest';
import { createNodeHandler, type NodeHandlerOptions } from '../src/index.js';

async function serve(api: FetchApi, options: NodeHandlerOptions = {}): Promise<RunningServer> {
  return listenForTest(createNodeHandler(api, { onError: () => {}, ...options }));
}

async function serveFake(options: NodeHandlerOptions = {}): Promise<FakeCore & RunningServer> {
  const core = createFakeCore();
  const running = await serve(core.api, options);
  return Object.assign(core, running);
}

/** Polls a counter until it stops moving, to observe a producer that waits. */
async function settledValue(read: () => number): Promise<number> {
  let last = -1;
  let stableRounds = 0;
  while (stableRounds < 4) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const value = read();
    stableRounds = value === last ? stableRounds + 1 : 0;
    last = value;
  }
  return last;
}

describe('createNodeHandler: requests', () => {
  it('hands the core the method, path, query, headers and exact body bytes', async () => {
    const { origin } = await serveFake();
    const bytes = new Uint8Array([0x7b, 0xff, 0x00, 0xc3, 0x28, 0x0a, 0x20, 0x7d]);
    const echo = await echoOf(
      await fetch(`${origin}/v1/echo?org=acme&repo=caf%C3%A9&flag`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-request-id': 'abc-123' },
        body: bytes,
      }),
    );
    expect(echo.method).toBe('PUT');
    expect(echo.pathname).toBe('/v1/echo');
    expect(echo.search).toBe('?org=acme&repo=caf%C3%A9&flag');
    expect(echo.headers['content-type']).toBe('application/json');
    expect(echo.headers['x-request-id']).toBe('abc-123');
    expect(echo.headers['content-length']).toBe('8');
    expect(Buffer.from(echo.body!, 'base64')).toEqual(Buffer.from(bytes));
  });

  it('gives GET requests and POSTs with an empty body no body at all', async () => {
    const { origin } = await serveFake();
    expect((await echoOf(await fetch(`${origin}/v1/echo`))).body).toBeNull();
    expect((await echoOf(await fetch(`${origin}/v1/echo`, { method: 'POST' }))).body).toBeNull();
  });

  it('streams a chunked upload to the core', async () => {
    const { origin } = await serveFake();
    const echo = await echoOf(await postChunked(`${origin}/v1/echo`, ['{"a":', '1,', '"b":"é"}']));
    expect(echo.headers['transfer-encoding']).toBe('chunked');
    expect(Buffer.from(echo.body!, 'base64').toString('utf8')).toBe('{"a":1,"b":"é"}');
  });

  it('keeps repeated headers, joined the Fetch way and cookies with a semicolon', async () => {
    const { origin } = await serveFake();
    const response = await httpRequest(`${origin}/v1/echo`, {
      headers: {
        'x-tag': ['one', 'two'],
        authorization: ['Bearer first', 'Bearer second'],
        cookie: ['a=1', 'b=2'],
      },
    });
    const echo = JSON.parse(response.body.toString()) as Echo;
    expect(echo.headers['x-tag']).toBe('one, two');
    expect(echo.headers.authorization).toBe('Bearer first, Bearer second');
    expect(echo.headers.cookie).toBe('a=1; b=2');
  });

  it('passes the peer address of the connection, not X-Forwarded-For', async () => {
    const { origin } = await serveFake();
    const echo = await echoOf(
      await fetch(`${origin}/v1/echo`, { headers: { 'x-forwarded-for': '203.0.113.9' } }),
    );
    expect(echo.remoteAddress).toBe('127.0.0.1');
  });

  it('builds the request URL from a well-formed Host header', async () => {
    const { origin } = await serveFake();
    const response = await httpRequest(`${origin}/v1/echo?x=1`, {
      headers: { host: 'ci.example.com:8443' },
    });
    expect((JSON.parse(response.body.toString()) as Echo).url).toBe(
      'http://ci.example.com:8443/v1/echo?x=1',
    );
  });

  it.each(['evil.example/v1/echo?', 'user:pw@evil.example', 'evil.example:80:81', 'a b'])(
    'falls back to localhost for the Host header %j',
    async (host) => {
      const { origin } = await serveFake();
      const response = await httpRequest(`${origin}/v1/echo`, { headers: { host } });
      expect((JSON.parse(response.body.toString()) as Echo).url).toBe('http://localhost/v1/echo');
    },
  );

  it('treats a path starting with two slashes as a path, not as another host', async () => {
    const { origin, seen } = await serveFake();
    const response = await httpRequest(`${origin}//evil.example/v1/echo`);
    expect(response.status).toBe(404);
    expect(new URL(seen[0]!.url).host).toBe(new URL(origin).host);
  });

  it('answers 405 to TRACE, which a Fetch Request cannot carry', async () => {
    const { origin, seen } = await serveFake();
    const response = await httpRequest(`${origin}/v1/echo`, { method: 'TRACE' });
    expect(response.status).toBe(405);
    expect(JSON.parse(response.body.toString())).toEqual({ error: 'method not allowed' });
    const header = (name: string) =>
      response.rawHeaders[response.rawHeaders.findIndex((h) => h.toLowerCase() === name) + 1];
    expect(header('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(header('vary')).toBe('Origin');
    expect(header('allow')).toBe('GET, HEAD, POST, PATCH, DELETE, OPTIONS');
    expect(seen).toHaveLength(0);
  });
});

describe('createNodeHandler: body limit', () => {
  it('accepts a body of exactly the limit', async () => {
    const { origin } = await serveFake({ maxBodyBytes: 16 });
    const echo = await echoOf(
      await fetch(`${origin}/v1/echo`, { method: 'POST', body: 'x'.repeat(16) }),
    );
    expect(Buffer.from(echo.body!, 'base64').toString()).toBe('x'.repeat(16));
  });

  it('lets the core answer 413 when the declared length is one byte over', async () => {
    const { origin, seen } = await serveFake({ maxBodyBytes: 16 });
    const response = await fetch(`${origin}/v1/echo`, { method: 'POST', body: 'x'.repeat(17) });
    await expectPayloadTooLarge(response);
    expect(seen).toHaveLength(1);
  });

  it('lets the core answer 413 when a chunked upload goes over the limit', async () => {
    const { origin } = await serveFake({ maxBodyBytes: 16 });
    await expectPayloadTooLarge(await postChunked(`${origin}/v1/echo`, zeroChunks(3, 10)));
  });

  it('holds to 1 MiB by default', async () => {
    const { origin } = await serveFake();
    const exact = await postZeros(`${origin}/v1/echo`, 1024 * 1024);
    expect(exact.status).toBe(200);
    await exact.arrayBuffer();
    const over = await postZeros(`${origin}/v1/echo`, 1024 * 1024 + 1);
    await expectPayloadTooLarge(over);
  });

  it('answers a 32 MiB upload with 413 and keeps serving', async () => {
    const { origin } = await serveFake();
    const response = await postZeros(`${origin}/v1/echo`, 32 * 1024 * 1024);
    await expectPayloadTooLarge(response);
    expect((await fetch(`${origin}/health`)).status).toBe(200);
  });

  it('answers 413 itself when the API lets the body error escape', async () => {
    const onError = vi.fn();
    const api: FetchApi = {
      async handle(request) {
        await request.arrayBuffer();
        return new Response('read');
      },
    };
    const { origin } = await serve(api, { maxBodyBytes: 4, onError });
    const response = await fetch(`${origin}/v1/echo`, { method: 'POST', body: 'too long' });
    await expectPayloadTooLarge(response);
    expect(onError).not.toHaveBeenCalled();
  });

  it('never reads a body the core does not ask for', async () => {
    const { origin, seen } = await serveFake({ maxBodyBytes: 16 });
    const response = await fetch(`${origin}/v1/unknown`, { method: 'POST', body: 'x'.repeat(100) });
    expect(response.status).toBe(404);
    expect(seen[0]!.bodyUsed).toBe(false);
  });
});

describe('createNodeHandler: responses', () => {
  it('sends each Set-Cookie as its own header line', async () => {
    const { origin } = await serveFake();
    const response = await httpRequest(`${origin}/v1/cookies`);
    expect(headerLines(response.rawHeaders, 'set-cookie')).toEqual(FAKE_COOKIES);
  });

  it('keeps the status and the absence of a body', async () => {
    const { origin } = await serveFake();
    const response = await httpRequest(`${origin}/v1/empty?status=204`);
    expect(response.status).toBe(204);
    expect(response.body).toHaveLength(0);
  });

  it('streams a 64 MiB response intact, producing only as fast as the client reads', async () => {
    const core = await serveFake();
    const chunks = 1024;
    const size = 64 * 1024;
    const response = await fetch(`${core.origin}/v1/stream?chunks=${chunks}&size=${size}`);
    const producedWhileStalled = await settledValue(() => core.streamedChunks);
    expect(producedWhileStalled).toBeLessThan(chunks);

    const received = new Uint8Array(await response.arrayBuffer());
    expect(received.byteLength).toBe(chunks * size);
    for (let chunk = 0; chunk < chunks; chunk += 97) {
      expect(received[chunk * size]).toBe(chunk % 251);
    }
  });

  it.each([
    ['producing', '/v1/endless'],
    ['waiting for data', '/v1/stalled'],
  ])('stops a %s response stream when the client goes away', async (_state, path) => {
    const core = await serveFake();
    const controller = new AbortController();
    const response = await fetch(`${core.origin}${path}`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await core.responseCancelled.happened;
    expect((await fetch(`${core.origin}/health`)).status).toBe(200);
  });

  it('cuts the connection and reports when the response body fails midway', async () => {
    const onError = vi.fn();
    const { origin } = await serveFake({ onError });
    expect(await fetchToEnd(`${origin}/v1/broken`)).toBe('cut');
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'storage went away' }));
    expect((await fetch(`${origin}/health`)).status).toBe(200);
  });
});

describe('createNodeHandler: failures', () => {
  it('answers exactly {"error":"internal error"} when the API throws, and reports the cause', async () => {
    const onError = vi.fn();
    const { origin } = await serveFake({ onError });
    const response = await fetch(`${origin}/v1/throw`);
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe('{"error":"internal error"}');
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringContaining('hunter2') }),
    );
  });

  it('answers 500 when the API returns something that is not a Response', async () => {
    const api = { handle: async () => 'not a response' } as unknown as FetchApi;
    const { origin } = await serve(api);
    const response = await fetch(`${origin}/health`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"internal error"}');
  });

  it('answers a clean 500 when a response header is one Node cannot send', async () => {
    const api: FetchApi = {
      async handle() {
        return new Response('x', {
          headers: { 'a-secret-detail': 'db.internal', 'x-control': 'a\u0001b' },
        });
      },
    };
    const { origin } = await serve(api);
    const response = await fetch(`${origin}/health`);
    expect(response.status).toBe(500);
    expect(response.headers.get('x-secret-detail')).toBeNull();
    expect(await response.text()).toBe('{"error":"internal error"}');
  });

  it('writes a [covgate] line to stderr by default', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const core = createFakeCore();
      const server = await listenForTest(createNodeHandler(core.api));
      await (await fetch(`${server.origin}/v1/throw`)).text();
      expect(log).toHaveBeenCalledWith('[covgate] request failed:', expect.any(Error));
    } finally {
      log.mockRestore();
    }
  });
});
