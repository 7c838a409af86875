import { existsSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startProcess } from '../../../test/support/processes.js';
import {
  CovgateApiError,
  type CovgateClientOptions,
  CovgateNetworkError,
  createCovgateClient,
} from '../src/index.js';
import { json, recordingSleep, rejection, text } from './support.js';

const BASE = 'https://covgate.example.com/api';

const built = new URL('../dist/index.cjs', import.meta.url).pathname;

/** A clock that only moves when a fetch or a back-off wait moves it. */
function fakeClock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function setup(
  fetch: (request: Request) => Promise<Response>,
  options: Partial<CovgateClientOptions> = {},
) {
  const clock = fakeClock();
  const { sleep, delays } = recordingSleep();
  const client = createCovgateClient({
    baseUrl: BASE,
    token: 'cvg_x',
    fetch,
    sleep: async (ms) => {
      clock.advance(ms);
      await sleep(ms);
    },
    random: () => 0.5,
    now: clock.now,
    ...options,
  });
  return { client, clock, delays };
}

describe('per-attempt time-out', () => {
  it('ends an attempt that never answers, retries it like a network error and says so', async () => {
    const requests: Request[] = [];
    let clock: ReturnType<typeof fakeClock> | undefined;
    const { client, delays, ...rest } = setup(
      (request) => {
        requests.push(request);
        clock?.advance(50);
        return new Promise<Response>(() => {});
      },
      { timeoutMs: 50 },
    );
    clock = rest.clock;
    const error = await rejection(
      client.createExecution({ body: { repo: 'web', branch: 'main', coverage: 1 } }),
    );
    expect(error).toBeInstanceOf(CovgateNetworkError);
    expect(error).toMatchObject({
      message: 'https://covgate.example.com did not answer within 0.05 s',
      timeoutMs: 50,
      attempts: 3,
      // three attempts of 50 ms on the fake clock and the back-off waits between them
      elapsedMs: 50 + 150 + 50 + 300 + 50,
    });
    expect(((error as Error).cause as DOMException).name).toBe('TimeoutError');
    expect(requests.map((r) => r.signal.aborted)).toEqual([true, true, true]);
    expect(new Set(requests.map((r) => r.headers.get('Idempotency-Key'))).size).toBe(1);
    expect(delays).toEqual([150, 300]);
  });

  it('counts the whole answer: headers followed by a stalled body time out too', async () => {
    const { client } = setup(
      async () =>
        new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array([123])) }), {
          status: 200,
          headers: { 'Content-Type': 'application/json' },
        }),
      { timeoutMs: 40, retry: { retries: 0 } },
    );
    expect(await rejection(client.getHealth())).toMatchObject({
      name: 'CovgateNetworkError',
      timeoutMs: 40,
      attempts: 1,
    });
  });

  it('does not retry a POST without an idempotency key that timed out', async () => {
    let calls = 0;
    const { client } = setup(
      () => {
        calls++;
        return new Promise<Response>(() => {});
      },
      { timeoutMs: 30 },
    );
    expect(await rejection(client.createToken({ body: { name: 'ci' } }))).toMatchObject({
      timeoutMs: 30,
      attempts: 1,
    });
    expect(calls).toBe(1);
  });

  it("leaves an answer that comes in time alone, and the caller's abort wins over it", async () => {
    const { client } = setup(async () => json(200, { status: 'ok' }), { timeoutMs: 1000 });
    expect(await client.getHealth()).toEqual({ status: 'ok' });

    const controller = new AbortController();
    const reason = new Error('stopped by the caller');
    const pending = setup(
      (request) =>
        new Promise<Response>((_, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason)),
        ),
      { timeoutMs: 10_000 },
    ).client.getHealth({ signal: controller.signal });
    controller.abort(reason);
    expect(await rejection(pending)).toBe(reason);
  });

  it('refuses a time-out that is not a positive number', () => {
    for (const timeoutMs of [0, -1, Number.NaN]) {
      expect(() => createCovgateClient({ baseUrl: BASE, timeoutMs })).toThrow(
        `timeoutMs must be a positive number of milliseconds: ${timeoutMs}`,
      );
    }
  });

  it('ends the calls to a real server that accepts and never answers', async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const client = createCovgateClient({
        baseUrl: `http://127.0.0.1:${port}`,
        timeoutMs: 300,
        retry: { retries: 1, minDelayMs: 10 },
      });
      const started = Date.now();
      const error = await rejection(client.getHealth());
      expect(error).toMatchObject({
        message: `http://127.0.0.1:${port} did not answer within 0.3 s`,
        timeoutMs: 300,
        attempts: 2,
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect((error as CovgateNetworkError).elapsedMs).toBeGreaterThanOrEqual(600);
      expect(sockets.length).toBeGreaterThanOrEqual(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe.skipIf(!existsSync(built))('a time-out in a process that collects garbage', () => {
  // Node's fetch follows an abort through a weak reference to the Request: a Request the
  // client did not hold was collected, never aborted, and its open connection kept the
  // process alive until the server closed it.
  const SCRIPT = `
const { createCovgateClient } = require(process.argv[1]);
const collect = setInterval(() => { globalThis.gc(); }, 5);
createCovgateClient({ baseUrl: process.argv[2], timeoutMs: 400, retry: { retries: 0 } })
  .getHealth()
  .catch((error) => { clearInterval(collect); console.log(error.message); });
`;

  it('aborts the request and lets the process exit', async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const child = startProcess(process.execPath, ['--expose-gc', '-e', SCRIPT, built, url], {
      env: process.env,
    });
    try {
      const outcome = await Promise.race([
        child.exited.then((exit) => exit.code),
        new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000)),
      ]);
      await child.allOutput();
      expect([outcome, child.stdout()]).toEqual([0, `${url} did not answer within 0.4 s\n`]);
    } finally {
      await child.stop('SIGKILL');
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('what an error tells about the answer', () => {
  it('counts the attempts and the time of a call that kept failing', async () => {
    let clock: ReturnType<typeof fakeClock> | undefined;
    const answers = [503, 503, 503];
    const { client, ...rest } = setup(async () => {
      clock?.advance(7);
      return json(answers.shift() ?? 500, { error: 'service unavailable' });
    });
    clock = rest.clock;
    const error = await rejection(client.getReadiness());
    expect(error).toBeInstanceOf(CovgateApiError);
    expect(error).toMatchObject({
      status: 503,
      error: 'service unavailable',
      fromApi: true,
      contentType: 'application/json',
      attempts: 3,
      elapsedMs: 7 + 150 + 7 + 300 + 7,
    });
  });

  it("marks an answer that is not the API's error shape, with its content type", async () => {
    const { client } = setup(async () =>
      text(501, '<html><body>Not Implemented</body></html>', 'text/html; charset=utf-8'),
    );
    expect(await rejection(client.listTokens())).toMatchObject({
      status: 501,
      error: 'HTTP 501',
      message: '501 HTTP 501',
      fromApi: false,
      contentType: 'text/html',
      attempts: 3,
    });
  });

  it('turns a success that is not JSON (a web page at the URL) into an error, not a SyntaxError', async () => {
    const { client } = setup(async () =>
      text(200, '<!doctype html><title>Welcome</title>', 'text/html'),
    );
    expect(await rejection(client.validateToken({ body: {} }))).toMatchObject({
      name: 'CovgateApiError',
      status: 200,
      fromApi: false,
      contentType: 'text/html',
      attempts: 1,
    });
    const badge = setup(async () => text(200, '<svg/>', 'image/svg+xml')).client;
    expect(await badge.getBadge({ org: 'acme', repo: 'web' })).toBe('<svg/>');
  });
});
