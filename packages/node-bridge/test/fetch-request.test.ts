import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { listenForTest } from '@covgate/test-support/http-server';
import { describe, expect, it } from 'vitest';
import {
  PayloadTooLargeError,
  requestOriginOf,
  type ToFetchRequestOptions,
  toFetchRequest,
} from '../src/index.js';

/** Serves requests by converting them with the given options and describing the result. */
async function serveConversion(options: ToFetchRequestOptions): Promise<string> {
  const server = await listenForTest(async (req, res) => {
    const request = toFetchRequest(req, options);
    let body: string | null = null;
    let failure: { name: string; status: unknown } | null = null;
    try {
      body = request.body === null ? null : await request.text();
    } catch (error) {
      failure = { name: (error as Error).name, status: (error as { status?: unknown }).status };
    }
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        url: request.url,
        body,
        failure,
        contentLength: request.headers.get('content-length'),
        transferEncoding: request.headers.get('transfer-encoding'),
      }),
    );
  });
  return server.origin;
}

describe('toFetchRequest', () => {
  it('uses the given origin and covgate path instead of the Host header and req.url', async () => {
    const origin = await serveConversion({ origin: 'https://ci.example.com', url: '/v1/x?y=1' });
    const seen = await (await fetch(`${origin}/mounted/v1/x?y=1`)).json();
    expect(seen.url).toBe('https://ci.example.com/v1/x?y=1');
  });

  it('takes bytes a framework already read as the body and fixes the length headers', async () => {
    const raw = new TextEncoder().encode('{"a":1,  "b":"\\u00e9"}');
    const origin = await serveConversion({ body: raw });
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('ignored'));
        controller.close();
      },
    });
    const seen = await (
      await fetch(origin, { method: 'POST', body, duplex: 'half' } as RequestInit)
    ).json();
    expect(seen.body).toBe('{"a":1,  "b":"\\u00e9"}');
    expect(seen.contentLength).toBe(String(raw.byteLength));
    expect(seen.transferEncoding).toBeNull();
  });

  it('gives no body when told there is none', async () => {
    const origin = await serveConversion({ body: null });
    const seen = await (await fetch(origin, { method: 'POST', body: 'abc' })).json();
    expect(seen.body).toBeNull();
  });

  it('fails the body read with PayloadTooLargeError when given bytes are over the limit', async () => {
    const origin = await serveConversion({ body: new Uint8Array(5), maxBodyBytes: 4 });
    const seen = await (await fetch(origin, { method: 'POST', body: 'abcde' })).json();
    expect(seen.failure).toEqual({ name: 'PayloadTooLargeError', status: 413 });
  });

  it('fails the streamed body read with status 413 one byte over the limit', async () => {
    const origin = await serveConversion({ maxBodyBytes: 4 });
    const seen = await (await fetch(origin, { method: 'POST', body: 'abcde' })).json();
    expect(seen.failure).toEqual({ name: 'PayloadTooLargeError', status: 413 });
  });

  it('says a request without a body has none, and one with a body has a stream', async () => {
    const requestWith = (method: string, headers: Record<string, string>) =>
      Object.assign(new IncomingMessage(new Socket()), {
        method,
        url: '/v1/auth/validate',
        headers,
      });
    const bodyOf = (method: string, headers: Record<string, string>, options = {}) =>
      toFetchRequest(requestWith(method, headers), options).body;
    expect(bodyOf('GET', {})).toBeNull();
    expect(bodyOf('POST', {})).toBeNull();
    expect(bodyOf('POST', { 'content-length': '0' })).toBeNull();
    expect(bodyOf('POST', { 'content-length': '12' }, { body: new Uint8Array(0) })).toBeNull();
    expect(bodyOf('POST', { 'content-length': '12' }, { body: null })).toBeNull();
    expect(bodyOf('POST', { 'content-length': '12' })).toBeInstanceOf(ReadableStream);
    expect(bodyOf('POST', { 'transfer-encoding': 'chunked' })).toBeInstanceOf(ReadableStream);
    expect(bodyOf('POST', {}, { body: new Uint8Array(3) })).toBeInstanceOf(ReadableStream);
    const empty = toFetchRequest(requestWith('POST', {}));
    expect(empty.body).toBeNull();
    expect(await empty.text()).toBe('');
    expect(empty.bodyUsed).toBe(false);
  });

  it('refuses TRACE with an error that says 405', () => {
    const req = Object.assign(new IncomingMessage(new Socket()), { method: 'TRACE', url: '/' });
    expect(() => toFetchRequest(req)).toThrow(expect.objectContaining({ status: 405 }));
  });
});

describe('requestOriginOf', () => {
  function requestWith(host: string | undefined, encrypted: boolean): IncomingMessage {
    const socket = Object.assign(new Socket(), encrypted ? { encrypted: true } : {});
    const req = new IncomingMessage(socket);
    if (host !== undefined) req.headers.host = host;
    return req;
  }

  it('says https on a TLS socket', () => {
    expect(requestOriginOf(requestWith('ci.example.com', true))).toBe('https://ci.example.com');
  });

  it.each([
    ['ci.example.com', 'http://ci.example.com'],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['[::1]:8080', 'http://[::1]:8080'],
    [undefined, 'http://localhost'],
    ['', 'http://localhost'],
    ['evil.example/path', 'http://localhost'],
    ['evil.example\\@good', 'http://localhost'],
    ['évil.example', 'http://localhost'],
  ])('reads the Host header %j as %s', (host, origin) => {
    expect(requestOriginOf(requestWith(host, false))).toBe(origin);
  });

  it('answers each request by its own Host header and socket, one after another', () => {
    const seen = [
      requestWith('a.example', false),
      requestWith('a.example', false),
      requestWith('a.example', true),
      requestWith('evil.example/path', false),
      requestWith(undefined, true),
      requestWith('a.example', false),
      requestWith(undefined, false),
      requestWith('b.example:8443', true),
    ].map(requestOriginOf);
    expect(seen).toEqual([
      'http://a.example',
      'http://a.example',
      'https://a.example',
      'http://localhost',
      'https://localhost',
      'http://a.example',
      'http://localhost',
      'https://b.example:8443',
    ]);
  });
});

describe('PayloadTooLargeError', () => {
  it('carries status 413 and the limit', () => {
    const error = new PayloadTooLargeError(1024);
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(413);
    expect(error.limit).toBe(1024);
  });
});
