import { connect } from 'node:net';
import { createTestApi, type TestApi } from '@covgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedApi, serveApi } from '../src/reference-server.js';

/**
 * Sends `bytes` and half-closes at once (FIN after the request, as `curl` with a closed
 * standard input or a proxy draining a connection does), then collects everything the server
 * answers until it closes.
 */
function halfClosedExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.end(bytes);
  });
}

describe('a client that half-closes its connection after the request, on the reference server', () => {
  let test: TestApi;
  let served: ServedApi;
  let secret: string;
  let orgSlug: string;

  beforeAll(async () => {
    test = createTestApi();
    const org = await test.createOrganisation();
    orgSlug = org.slug;
    ({ secret } = await test.insertToken(org));
    served = await serveApi(test.api, { host: '127.0.0.1', port: 0, logger: test.logs.logger });
  });

  afterAll(async () => {
    await served?.close();
  });

  it('gets the whole answer of a request that needs a token verification and a store read', async () => {
    const body = '{}';
    const answer = await halfClosedExchange(
      served.url,
      [
        'POST /v1/auth/validate HTTP/1.1',
        'Host: covgate.test',
        `Authorization: Bearer ${secret}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        body,
      ].join('\r\n'),
    );
    const [head = '', payload] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(payload ?? '')).toMatchObject({ valid: true });
  });

  it('gets the whole answer of a GET that needs a token verification and a store read', async () => {
    const answer = await halfClosedExchange(
      served.url,
      `GET /v1/repos?org=${orgSlug} HTTP/1.1\r\nHost: covgate.test\r\nAuthorization: Bearer ${secret}\r\n\r\n`,
    );
    const [head = '', payload] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(JSON.parse(payload ?? '')).toEqual({ repos: [] });
  });
});
