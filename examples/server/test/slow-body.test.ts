import { connect } from 'node:net';
import { captureLogs, createTestApi } from '@covgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONNECTION_LIMITS } from '../src/connection-limits.js';
import { type ServedApi, serveApi } from '../src/reference-server.js';

/**
 * Sends the headers of a 1 000-byte body, then one byte of it every 100 ms (the whole body
 * would take 100 s), and resolves with what the server answered once it closed.
 */
function trickledBody(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    let trickle: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(trickle);
      resolve(answer);
    });
    socket.write(
      'POST /v1/auth/validate HTTP/1.1\r\nHost: covgate.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
    );
    trickle = setInterval(() => socket.write(' '), 100);
  });
}

describe('a request body that keeps arriving past the whole-request time-out', () => {
  let served: ServedApi;

  beforeAll(async () => {
    const logs = captureLogs();
    served = await serveApi(createTestApi({ logs }).api, {
      host: '127.0.0.1',
      port: 0,
      logger: logs.logger,
      // The default 10 s and 30 s, scaled down: the mechanism is the same.
      limits: { ...DEFAULT_CONNECTION_LIMITS, headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 },
    });
  });

  afterAll(async () => {
    await served?.close();
  });

  it('is cut with 408 and the connection closed, although bytes keep coming', async () => {
    const answer = await trickledBody(served.url);
    const [head = '', body] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(head.toLowerCase()).toContain('\r\nconnection: close');
    expect(JSON.parse(body ?? '')).toEqual({ error: 'request timeout' });
  });
});
