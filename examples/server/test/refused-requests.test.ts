import { connect } from 'node:net';
import { captureLogs, createTestApi, type LogCapture } from '@covgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedApi, serveApi } from '../src/reference-server.js';

/**
 * Sends raw bytes, half-closes after `endAfterMs` (so a request Node drops is not waited on
 * forever) and resolves with everything the server answered before closing.
 */
function rawExchange(url: string, bytes: string, endAfterMs = 1_000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.write(bytes);
    setTimeout(() => socket.end(), endAfterMs).unref();
  });
}

/** Status line, headers (lower-case names) and body of a raw HTTP/1.1 answer. */
function parseAnswer(raw: string): { status: string; headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const [status = '', ...lines] = raw.slice(0, split).split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  return { status, headers, body: raw.slice(split + 4) };
}

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("requests Node's HTTP server would answer bare or drop, on the reference server", () => {
  let served: ServedApi;
  let logs: LogCapture;
  const requestLines = () => logs.lines().filter((line) => line.msg === 'request');
  const lineOf = (requestId: string | undefined) =>
    requestLines().filter((line) => line.requestId === requestId);

  beforeAll(async () => {
    logs = captureLogs();
    served = await serveApi(createTestApi({ logs }).api, {
      host: '127.0.0.1',
      port: 0,
      logger: logs.logger,
    });
  });

  afterAll(async () => {
    await served?.close();
  });

  it('answers an HTTP/1.1 request without Host 400 in the API shape, with X-Request-ID, and logs it once', async () => {
    const raw = await rawExchange(served.url, 'GET /health HTTP/1.1\r\n\r\n');
    const answer = parseAnswer(raw);
    expect(answer.status).toBe('HTTP/1.1 400 Bad Request');
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.body).toBe('{"error":"malformed request"}');
    expect(lineOf(answer.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({
        status: 400,
        method: 'GET',
        refused: 'missing_host',
        remoteAddress: '127.0.0.1',
      }),
    ]);
  });

  it('serves an HTTP/1.0 request without Host (it needs none)', async () => {
    const answer = parseAnswer(await rawExchange(served.url, 'GET /health HTTP/1.0\r\n\r\n'));
    expect(answer.status).toBe('HTTP/1.1 200 OK');
    expect(answer.body).toBe('{"status":"ok"}');
  });

  it('answers CONNECT 405 with Allow in the API shape instead of closing silently, and logs it', async () => {
    const raw = await rawExchange(
      served.url,
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    );
    const answer = parseAnswer(raw);
    expect(answer.status).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(answer.headers.get('allow')).toBe('GET, HEAD, POST, PATCH, DELETE, OPTIONS');
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.headers.get('x-request-id')).toMatch(REQUEST_ID);
    expect(answer.body).toBe('{"error":"method not allowed"}');
    expect(lineOf(answer.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ status: 405, method: 'CONNECT', refused: 'connect' }),
    ]);
  });

  it('routes an absolute-form target by its path, like any request, with its access line', async () => {
    const answer = parseAnswer(
      await rawExchange(
        served.url,
        'GET http://elsewhere.example/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ),
    );
    expect(answer.status).toBe('HTTP/1.1 200 OK');
    expect(answer.body).toBe('{"status":"ok"}');
    expect(lineOf(answer.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ status: 200, method: 'GET', path: '/health' }),
    ]);
  });

  it('answers an upgrade request as a plain request (no protocol switch), with its access line', async () => {
    const answer = parseAnswer(
      await rawExchange(
        served.url,
        'GET /health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n\r\n',
      ),
    );
    expect(answer.status).toBe('HTTP/1.1 200 OK');
    expect(lineOf(answer.headers.get('x-request-id'))).toEqual([
      expect.objectContaining({ status: 200, path: '/health' }),
    ]);
  });

  it.each([
    ['malformed syntax', 'NOT HTTP AT ALL\r\n\r\n', '400 Bad Request', 'malformed request'],
    [
      'an HTTP/2 preface',
      'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
      '400 Bad Request',
      'malformed request',
    ],
    [
      'headers over 16 KiB',
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      '431 Request Header Fields Too Large',
      'request header fields too large',
    ],
  ])(
    'answers %s in the API shape and logs the parser error once',
    async (_label, bytes, status, error) => {
      const answer = parseAnswer(await rawExchange(served.url, bytes));
      expect(answer.status).toBe(`HTTP/1.1 ${status}`);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.headers.get('connection')).toBe('close');
      expect(answer.body).toBe(JSON.stringify({ error }));
      const lines = lineOf(answer.headers.get('x-request-id'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ status: Number(status.slice(0, 3)) });
      expect(lines[0]?.parserError).toMatch(/^HPE_/);
    },
  );
});
