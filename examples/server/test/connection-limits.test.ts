import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BuiltServer,
  freePort,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const built = isServerBuilt();
if (!built) {
  console.warn('[covgate] connection-limit test SKIPPED: build the reference server first');
}

/** Descriptors the server may open: 2 000 slow connections would take them all without limits. */
const SERVER_DESCRIPTORS = 1_024;
const SLOW_CONNECTIONS = 2_000;
const PER_ADDRESS = 256;
const HEADERS_TIMEOUT_MS = 10_000;
/** The attacker and the other client: Linux routes all of 127/8 to the loopback interface. */
const ATTACKER = '127.0.0.2';
const CLIENT = '127.0.0.1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How one slow connection ended, from the attacker's side. */
interface SlowEnd {
  /** What the server sent before closing. */
  answer: string;
  /** From the connection's first byte to its close, in ms. */
  heldMs: number;
}

/**
 * Opens a connection from `ATTACKER` that sends the start of a request and then one header
 * byte a second, never finishing its headers (slowloris). Resolves when the server closes it.
 */
function slowConnection(port: number): Promise<SlowEnd> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ port, host: CLIENT, localAddress: ATTACKER });
    let answer = '';
    let started = 0;
    let trickle: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      started = performance.now();
      socket.write('GET /health HTTP/1.1\r\nHost: covgate.test\r\nX-Slow: ');
      trickle = setInterval(() => socket.write('a'), 1_000);
    });
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(trickle);
      resolve({ answer, heldMs: started === 0 ? 0 : performance.now() - started });
    });
  });
}

/** One request on a new connection from `CLIENT`: its status, or the failure's code. */
function probe(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: CLIENT, localAddress: CLIENT });
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('timeout');
    }, 2_000);
    socket.on('connect', () =>
      socket.write('GET /health HTTP/1.1\r\nHost: covgate.test\r\nConnection: close\r\n\r\n'),
    );
    socket.on('data', (chunk) => {
      answer += String(chunk);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(error.code ?? 'error');
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'closed without an answer');
    });
  });
}

describe.skipIf(!built)('connection limits of the built reference server', () => {
  let server: BuiltServer;
  let dataDir: string;
  let port: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'covgate-connections-'));
    port = await freePort();
    server = await startBuiltServer(
      { PATH: process.env.PATH, PORT: String(port), COVGATE_DATA_DIR: dataDir, NODE_ENV: 'test' },
      { descriptorLimit: SERVER_DESCRIPTORS },
    );
  });

  afterAll(async () => {
    await server?.kill();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('lowers its connection ceiling to what its descriptors allow, and says so', async () => {
    await server.waitForLine(/\[connections\] at most/);
    expect(server.stdout()).toContain(
      `[connections] at most ${SERVER_DESCRIPTORS - 128} connections, not 10000: this process may open ${SERVER_DESCRIPTORS} descriptors (raise its limit, ulimit -n / LimitNOFILE, for more)`,
    );
  });

  it(`keeps serving another address while one holds ${SLOW_CONNECTIONS} slow-header connections`, async () => {
    const slow: Promise<SlowEnd>[] = [];
    // Opened in batches so the listen backlog is not what refuses them.
    for (let i = 0; i < SLOW_CONNECTIONS; i += 100) {
      for (let j = i; j < Math.min(SLOW_CONNECTIONS, i + 100); j++) slow.push(slowConnection(port));
      await sleep(10);
    }
    const probes: string[] = [];
    let attackOver = false;
    const ends = Promise.all(slow).finally(() => {
      attackOver = true;
    });
    const started = performance.now();
    while (!attackOver && performance.now() - started < HEADERS_TIMEOUT_MS + 8_000) {
      probes.push(await probe(port));
      await sleep(100);
    }
    const results = await ends;
    const cut = results.filter((end) => end.answer === '');
    const timedOut = results.filter((end) => end.answer.startsWith('HTTP/1.1 408 '));
    const slowestHeld = Math.max(...timedOut.map((end) => end.heldMs));
    const failedProbes = probes.filter((status) => status !== '200');
    console.log(
      `[connections] ${SLOW_CONNECTIONS} slow-header connections from ${ATTACKER}: ${cut.length} closed at once, ${timedOut.length} answered 408 after at most ${Math.round(slowestHeld)} ms; ${probes.length} requests from ${CLIENT} meanwhile, ${failedProbes.length} failed ${JSON.stringify(failedProbes)}`,
    );
    expect(failedProbes).toEqual([]);
    expect(probes.length).toBeGreaterThan(10);
    expect(timedOut).toHaveLength(PER_ADDRESS);
    expect(cut).toHaveLength(SLOW_CONNECTIONS - PER_ADDRESS);
    expect(Math.max(...cut.map((end) => end.heldMs))).toBeLessThan(HEADERS_TIMEOUT_MS);
    expect(timedOut[0]?.answer.endsWith('\r\n\r\n{"error":"request timeout"}')).toBe(true);
    // Node checks the time-outs every second; a loaded machine adds its own delay.
    expect(slowestHeld).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(slowestHeld).toBeLessThan(HEADERS_TIMEOUT_MS + 5_000);
    await server.waitForLine(/below its ceiling again/);
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.includes(`[connections] ${ATTACKER}`));
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      `[connections] ${ATTACKER} holds ${PER_ADDRESS} connections (the ceiling per address): closing its new ones until some end`,
      `[connections] ${ATTACKER} below its ceiling again; ${SLOW_CONNECTIONS - PER_ADDRESS} of its connections closed`,
    ]);
  }, 40_000);
});
