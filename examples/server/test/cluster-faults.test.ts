import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { encryptCredential, repositoryLinkCredentialContext } from '@covgate/core/internal';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServers,
} from '@covgate/test-support/built-server';
import { type FakeGithub, startFakeGithub } from '@covgate/test-support/fake-github';
import { startFakeGithubRest } from '@covgate/testing';
import { Redis } from 'ioredis';
import { createConnection } from 'mysql2/promise';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnedProcess, startProcess } from '../../../test/support/processes.js';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';
import { cookieHeader, setCookies } from './support/cookies.js';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';

/**
 * Two built reference-server processes on one MariaDB database and one Redis, each reached
 * through a TCP proxy this test controls, so real faults (a stalled or cut connection) hit
 * the servers while the shared services keep running for everybody else.
 */
const mysqlUrl = process.env.COVGATE_MYSQL_URL;
const redisUrl = process.env.COVGATE_REDIS_URL;
const required =
  process.env.COVGATE_REQUIRE_MYSQL === '1' || process.env.COVGATE_REQUIRE_REDIS === '1';
const runnable = Boolean(mysqlUrl && redisUrl) && isServerBuilt();
if (!runnable) {
  console.warn(
    '[covgate] cluster fault suite SKIPPED: needs COVGATE_MYSQL_URL, COVGATE_REDIS_URL and the built server',
  );
}

/** The bound of every store and Redis call, as documented in docs/configuration.md. */
const DEADLINE_MS = 2_000;
/**
 * What CI checks of a request that waits one deadline. The goal (the deadline + 10 %) is
 * measured on an idle machine for the closing note; on a loaded 2-core CI machine the answer
 * after a deadline comes several hundred ms late. A deadline's timer fires late, never early,
 * so a request that waited two deadlines in sequence (or none fired) still fails this bound.
 */
const ONE_DEADLINE_BOUND_MS = 2 * DEADLINE_MS;
const STALL_MS = Number(process.env.COVGATE_CLUSTER_STALL_MS ?? 20_000);
/** The stall the retrying clients ride out: several deadlines long, short enough for CI. */
const RETRY_STALL_MS = 6_000;
const SESSION_SECRET = 'cluster-session-secret-0123456789abcdef';
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

/** `url` with its path (database or Redis db index) kept and its host:port moved to the proxy. */
function throughProxy(url: string, proxy: FaultProxy, path?: string): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  if (path !== undefined) parsed.pathname = path;
  return parsed.toString();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A process spinning one CPU core (core 0, pinned with `taskset` where it exists), so the
 * stall is measured on a loaded machine rather than an idle one.
 */
function busyLoop(): OwnedProcess {
  const spin = [process.execPath, '-e', 'for (;;) {}'];
  return existsSync('/usr/bin/taskset')
    ? startProcess('/usr/bin/taskset', ['-c', '0', ...spin], { env: {} })
    : startProcess(spin[0] as string, spin.slice(1), { env: {} });
}

/** Log lines of a server as parsed JSON (non-JSON lines such as audit lines skipped). */
function jsonLines(server: BuiltServer): Array<Record<string, unknown>> {
  return server
    .stdout()
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return typeof parsed === 'object' && parsed !== null
          ? [parsed as Record<string, unknown>]
          : [];
      } catch {
        return [];
      }
    });
}

/** Sends raw bytes and resolves with everything the server answers before closing. */
function rawExchange(url: string, bytes: string): Promise<string> {
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
  });
}

describe.skipIf(!runnable && !required)('two processes on MariaDB and Redis under faults', () => {
  let mysqlProxy: FaultProxy;
  let redisProxy: FaultProxy;
  let dataDir: string;
  let databaseUrl: string;
  let servers: BuiltServer[] = [];
  let github: FakeGithub;
  let slug: string;
  let apiToken: string;
  let sessionToken: string;
  const started = () => servers as [BuiltServer, BuiltServer];

  beforeAll(async () => {
    if (!mysqlUrl || !redisUrl || !isServerBuilt()) {
      throw new Error('cluster suite required: set COVGATE_MYSQL_URL, COVGATE_REDIS_URL and build');
    }
    const base = new URL(mysqlUrl);
    const database = `${base.pathname.slice(1) || 'covgate'}_cluster`;
    const admin = await createConnection({
      host: base.hostname,
      port: Number(base.port || 3306),
      user: decodeURIComponent(base.username),
      password: decodeURIComponent(base.password),
    });
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.end();
    const direct = new URL(mysqlUrl);
    direct.pathname = `/${database}`;
    databaseUrl = direct.toString();

    // Failed-verification counters of earlier runs (same address, 127.0.0.1) must not count.
    const cleaner = new Redis(redisUrl);
    const stale = await cleaner.keys('covgate-vt-*');
    if (stale.length > 0) await cleaner.del(...stale);
    cleaner.disconnect();

    mysqlProxy = await startFaultProxy({ host: base.hostname, port: Number(base.port || 3306) });
    const redis = new URL(redisUrl);
    redisProxy = await startFaultProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    dataDir = await mkdtemp(join(tmpdir(), 'covgate-cluster-'));

    const store = await openStore(loadConfig({ DATABASE_URL: databaseUrl, PORT: '0' }), silent);
    slug = `cluster-${Date.now().toString(36)}`;
    const boot = await bootstrapOrganisation(store, {
      slug,
      plan: 'enterprise',
      userId: 'usr_cluster',
      sessionSecret: SESSION_SECRET,
      sessionLifetimeSeconds: undefined,
    });
    await store.close();
    sessionToken = boot.sessionToken;

    github = await startFakeGithub({
      clientId: 'Iv1.cluster-client',
      clientSecret: 'cluster-client-secret-0123456789',
      account: { id: 770001, login: 'cluster-dev' },
    });
    const env = {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      GITHUB_CLIENT_ID: 'Iv1.cluster-client',
      GITHUB_CLIENT_SECRET: 'cluster-client-secret-0123456789',
      GITHUB_BASE_URL: github.baseUrl,
      GITHUB_API_BASE_URL: github.apiBaseUrl,
      // Either process may get the callback, as behind a load balancer.
      OAUTH_REDIRECT_URL: 'http://covgate.test/auth/github/callback',
      PORT: '0',
      DATABASE_URL: throughProxy(databaseUrl, mysqlProxy),
      REDIS_URL: throughProxy(redisUrl, redisProxy),
      SESSION_SECRET,
      ENTERPRISE_RATE_LIMIT: '1000000',
      COVGATE_DATA_DIR: dataDir,
      // The outbox test's fake GitHub listens on loopback.
      ALLOW_PRIVATE_CODE_HOSTS: '1',
    };
    servers = await startBuiltServers(2, env);
    const [a] = started();
    const created = await fetch(`${a.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${boot.sessionToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cluster' }),
    });
    expect(created.status).toBe(201);
    apiToken = ((await created.json()) as { secret: string }).secret;
    // Two server start-ups: up to 35 s each on a loaded machine under Node 24.
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    mysqlProxy?.resume();
    redisProxy?.resume();
    await mysqlProxy?.close();
    await redisProxy?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const list = (server: BuiltServer) =>
    fetch(`${server.url}/v1/executions?org=${slug}&repo=web`, {
      headers: { authorization: `Bearer ${apiToken}` },
    });

  const ingest = (server: BuiltServer, repo: string, coverage: number) =>
    fetch(`${server.url}/v1/executions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ org: slug, repo, branch: 'main', coverage }),
    });

  it('is ready on both processes with the database and Redis up', async () => {
    for (const server of started()) {
      const ready = await fetch(`${server.url}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.text()).toBe('{"status":"ready"}');
      expect((await list(server)).status).toBe(200);
    }
  });

  it(`answers 503 with Retry-After within one ${DEADLINE_MS} ms deadline while MariaDB is stalled, reports not ready, and recovers`, async () => {
    const durations: number[] = [];
    /** Durations of the requests answered before the database came back. */
    const duringStall: number[] = [];
    let resumedAt = Number.POSITIVE_INFINITY;
    const statuses = new Map<number, number>();
    const bodies = new Set<string>();
    const retryAfters = new Set<string | null>();
    let running = true;
    const loop = async (server: BuiltServer) => {
      while (running) {
        const start = performance.now();
        const response = await list(server);
        const body = await response.text();
        const end = performance.now();
        durations.push(end - start);
        if (end < resumedAt) duringStall.push(end - start);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status !== 200) {
          bodies.add(body);
          retryAfters.add(response.headers.get('retry-after'));
        }
      }
    };
    const busy = busyLoop();
    mysqlProxy.stall();
    const stallStart = performance.now();
    const loops = started().flatMap((server) => [loop(server), loop(server), loop(server)]);
    try {
      await sleep(1_000);
      for (const server of started()) {
        const health = await fetch(`${server.url}/health`);
        expect(health.status).toBe(200);
        const start = performance.now();
        const ready = await fetch(`${server.url}/health/ready`);
        expect(ready.status).toBe(503);
        expect(await ready.text()).toBe('{"error":"not ready"}');
        expect(performance.now() - start).toBeLessThan(ONE_DEADLINE_BOUND_MS);
      }
      await sleep(Math.max(0, STALL_MS - (performance.now() - stallStart)));
    } finally {
      resumedAt = performance.now();
      mysqlProxy.resume();
      running = false;
      await Promise.all(loops);
      await busy.stop('SIGKILL');
    }
    const slowestDuring = Math.max(...duringStall);
    const slowest = Math.max(...durations);
    const load = loadavg()
      .map((average) => average.toFixed(2))
      .join(' ');
    // The same requests as the servers timed them (access lines), without the client's side.
    const inServer = Math.max(
      ...started().flatMap((server) =>
        jsonLines(server)
          .filter((line) => line.msg === 'request' && line.status === 503)
          .map((line) => Number(line.durationMs)),
      ),
    );
    console.log(
      `[cluster] MariaDB stalled ${STALL_MS} ms with a busy loop on CPU 0 (load average ${load}): ${durations.length} requests, slowest answered during the stall ${Math.round(slowestDuring)} ms (${Math.round(inServer)} ms in the server), slowest overall (straddling the resume) ${Math.round(slowest)} ms, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(slowestDuring).toBeLessThan(ONE_DEADLINE_BOUND_MS);
    // The deadline is per store call: a request whose first call ends just as the database
    // returns may spend one more bound on its next call (at most three calls in sequence, so
    // four deadlines cannot fit; see ONE_DEADLINE_BOUND_MS for the load margin).
    expect(slowest).toBeLessThan(4 * DEADLINE_MS);
    expect([...statuses.keys()].every((status) => status === 200 || status === 503)).toBe(true);
    expect(statuses.get(503)).toBeGreaterThan(0);
    expect([...bodies]).toEqual(['{"error":"service unavailable"}']);
    expect([...retryAfters]).toEqual(['1']);

    const recovered = performance.now();
    for (const server of started()) {
      let status = 0;
      while (status !== 200 && performance.now() - recovered < 10_000) {
        status = (await list(server)).status;
      }
      expect(status).toBe(200);
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    }
    let overloadLines = 0;
    for (const server of started()) {
      // The first call to time out is the token look-up or the list, whichever the request
      // reached: logged once under its component when the overload starts, not per request.
      await server.waitForLine(
        /"msg":"\[(?:tokens|executions)\] \w+ failed: ETIMEDOUT: no answer within \d+ ms; the store is overloaded: answering 503 until a call succeeds again"/,
      );
      const messages = jsonLines(server)
        .map((line) => line.msg)
        .filter((msg): msg is string => typeof msg === 'string');
      expect(messages.filter((msg) => /^\[\w+\] \[\w+\]/.test(msg))).toEqual([]);
      overloadLines += messages.filter((msg) => msg.includes('the store is overloaded')).length;
    }
    expect(overloadLines).toBeLessThan(statuses.get(503) ?? 0);
  }, 60_000);

  it('serves API-token requests within one deadline while Redis is stalled (fail open), waiting for Redis once per outage, logging the outage once per process', async () => {
    // A token no process has verified (cached) yet: its first request asks Redis for the
    // verification throttle and then for the rate limit.
    const fresh = await fetch(`${started()[0].url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'first-used-in-redis-stall' }),
    });
    expect(fresh.status).toBe(201);
    const freshToken = ((await fresh.json()) as { secret: string }).secret;
    const timed = async (server: BuiltServer, token: string) => {
      const start = performance.now();
      const response = await fetch(`${server.url}/v1/executions?org=${slug}&repo=web`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await response.text();
      expect(response.status).toBe(200);
      return performance.now() - start;
    };
    const first: number[] = [];
    const later: number[] = [];
    redisProxy.stall();
    try {
      for (const server of started()) {
        first.push(await timed(server, freshToken));
        // The outage is remembered: these do not wait for Redis at all.
        later.push(await timed(server, apiToken), await timed(server, apiToken));
      }
      for (const server of started()) {
        expect((await fetch(`${server.url}/health/ready`)).status).toBe(503);
      }
    } finally {
      redisProxy.resume();
    }
    console.log(
      `[cluster] Redis stalled: first request per process (uncached token) ${first.map(Math.round).join(', ')} ms, slowest later request ${Math.round(Math.max(...later))} ms`,
    );
    expect(Math.max(...first)).toBeLessThan(ONE_DEADLINE_BOUND_MS);
    expect(Math.max(...later)).toBeLessThan(DEADLINE_MS);
    for (const server of started()) {
      // Limits are enforced again once the outage probe's PING is answered (within a pause of
      // 250 ms after Redis is back); requests before that are still served unlimited.
      const resumed = performance.now();
      let limit: string | null = null;
      while (limit === null && performance.now() - resumed < ONE_DEADLINE_BOUND_MS) {
        const response = await list(server);
        await response.text();
        limit = response.headers.get('ratelimit-limit');
      }
      expect(limit).toBe('1000000');
      // The log line may reach this test's pipe after the response does.
      await server.waitForLine(/limiter available again/);
      const messages = jsonLines(server)
        .map((line) => String(line.msg))
        .filter((msg) => msg.startsWith('[ratelimit]'));
      expect(messages.filter((msg) => msg.includes('limiter unavailable'))).toHaveLength(1);
      expect(messages.filter((msg) => msg.includes('available again'))).toHaveLength(1);
      expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    }
  }, 60_000);

  it('refuses a token on the other process right after a revoke (purge through Redis pub/sub)', async () => {
    const [a, b] = started();
    const created = await fetch(`${a.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'revoked' }),
    });
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    const listWith = (server: BuiltServer) =>
      fetch(`${server.url}/v1/executions?org=${slug}&repo=web`, {
        headers: { authorization: `Bearer ${secret}` },
      });
    // Both processes have verified (and cached) the token.
    expect((await listWith(a)).status).toBe(200);
    expect((await listWith(b)).status).toBe(200);
    const revoked = await fetch(`${a.url}/v1/tokens/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${sessionToken}` },
    });
    expect(revoked.status).toBe(204);
    const start = performance.now();
    let status = 200;
    while (status !== 401 && performance.now() - start < 15_000) {
      status = (await listWith(b)).status;
    }
    const elapsed = performance.now() - start;
    console.log(
      `[cluster] revoke on one process to refusal on the other: ${elapsed.toFixed(1)} ms`,
    );
    expect(status).toBe(401);
    // The goal is 100 ms (measured on an idle machine for the closing note); a loaded CI
    // machine delays the pub/sub hop by more. Without the purge the refusal would only come
    // when the verified-token cache entry expires (10 s), which this bound still catches.
    expect(elapsed).toBeLessThan(3_000);
  });

  it('shares the failed-verification throttle: 10 wrong guesses split over both processes block the token id', async () => {
    const [a, b] = started();
    const created = await fetch(`${a.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'guessed' }),
    });
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    const wrong = `cvg_${id}${secret.endsWith('00000000') ? '11111111' : '00000000'}`;
    const listWith = (server: BuiltServer, token: string) =>
      fetch(`${server.url}/v1/executions?org=${slug}&repo=web`, {
        headers: { authorization: `Bearer ${token}` },
      });
    for (let i = 0; i < 10; i++) {
      expect((await listWith(i % 2 === 0 ? a : b, wrong)).status).toBe(401);
    }
    // Five failures per process: per-process counters would still let the real token in.
    expect((await listWith(a, secret)).status).toBe(401);
    expect((await listWith(b, secret)).status).toBe(401);
  });

  it('refuses a login callback replayed on the other process without contacting the code host (used states in Redis)', async () => {
    const [a, b] = started();
    const login = await fetch(`${a.url}/auth/github`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const stateCookie = setCookies(login).get('covgate_oauth_state');
    if (!stateCookie) throw new Error('no state cookie');
    const authorized = await fetch(login.headers.get('location') as string, { redirect: 'manual' });
    const back = new URL(authorized.headers.get('location') as string);
    const callbackOn = (server: BuiltServer) =>
      fetch(`${server.url}/auth/github/callback${back.search}`, {
        redirect: 'manual',
        headers: { cookie: cookieHeader(stateCookie) },
      });
    const exchanges = () => github.requests.filter((request) => request.endsWith('/access_token'));
    const signedIn = await callbackOn(a);
    expect(signedIn.status).toBe(302);
    expect(setCookies(signedIn).has('covgate_session')).toBe(true);
    expect(exchanges()).toHaveLength(1);
    const replayed = await callbackOn(b);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toEqual({ error: 'invalid state' });
    expect(setCookies(replayed).has('covgate_session')).toBe(false);
    expect(exchanges()).toHaveLength(1);
  });

  it("answers requests Node's parser refuses in the API's shape, with X-Request-ID, and logs them", async () => {
    const [a] = started();
    const malformed = await rawExchange(a.url, 'NOT HTTP AT ALL\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(malformed).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    expect(malformed.endsWith('\r\n\r\n{"error":"malformed request"}')).toBe(true);
    const huge = await rawExchange(
      a.url,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(huge.endsWith('\r\n\r\n{"error":"request header fields too large"}')).toBe(true);
    await a.waitForLine(/"parserError":"HPE_HEADER_OVERFLOW"/);
    const logged = jsonLines(a).filter((line) => line.msg === 'request' && line.parserError);
    expect(logged.map((line) => line.status)).toEqual([400, 431]);
  });

  it('stores each ingest once when clients retry with idempotency keys across both processes after a stall', async () => {
    const repo = `retry-${Date.now().toString(36)}`;
    const keys = new Set<string>();
    const acknowledged = new Set<string>();
    let requests = 0;
    let failures = 0;
    let retried = 0;
    let replayed = 0;
    let running = true;
    const keyedIngest = (server: BuiltServer, key: string, coverage: number) =>
      fetch(`${server.url}/v1/executions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiToken}`,
          'content-type': 'application/json',
          'idempotency-key': key,
        },
        body: JSON.stringify({ org: slug, repo, branch: 'main', coverage }),
      });
    /** One client: a new key per run, retried on the other process until it is acknowledged. */
    const client = async (name: string, first: number) => {
      for (let run = 0; running; run++) {
        const key = `${name}-${run}`;
        const coverage = 50 + (run % 50);
        keys.add(key);
        for (let attempt = 0; attempt < 40; attempt++) {
          if (attempt > 0) {
            retried++;
            await sleep(250);
          }
          requests++;
          try {
            const response = await keyedIngest(started()[(first + attempt) % 2]!, key, coverage);
            await response.text();
            if (response.status === 201) {
              acknowledged.add(key);
              if (response.headers.get('idempotent-replayed') === 'true') replayed++;
              break;
            }
            failures++;
          } catch {
            failures++;
          }
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, i) => client(`c${i}`, i % 2));
    await sleep(1_000);
    mysqlProxy.stall();
    try {
      await sleep(RETRY_STALL_MS);
    } finally {
      mysqlProxy.resume();
    }
    await sleep(1_000);
    running = false;
    await Promise.all(clients);

    const connection = await createConnection(databaseUrl);
    const [rows] = await connection.query('SELECT COUNT(*) AS n FROM executions WHERE repo = ?', [
      repo,
    ]);
    const [counters] = await connection.query(
      'SELECT total FROM execution_counters WHERE repo = ?',
      [repo],
    );
    const [keyRows] = await connection.query(
      'SELECT COUNT(*) AS n FROM idempotency_keys k JOIN executions e ON e.id = k.execution_id WHERE e.repo = ?',
      [repo],
    );
    await connection.end();
    const stored = Number((rows as Array<{ n: number }>)[0]?.n);
    const total = Number((counters as Array<{ total: number }>)[0]?.total);
    console.log(
      `[cluster] retries with idempotency keys after a ${RETRY_STALL_MS} ms MariaDB stall: ${keys.size} distinct keys, ${acknowledged.size} acknowledged, ${requests} requests, ${failures} failed attempts, ${retried} retries, ${replayed} answered as replays (Idempotent-Replayed), ${stored} rows stored (duplicate-free: ${stored === keys.size}), counter ${total}`,
    );
    expect(failures).toBeGreaterThan(0);
    expect(retried).toBeGreaterThan(0);
    expect(acknowledged.size).toBe(keys.size);
    expect(stored).toBe(keys.size);
    expect(total).toBe(keys.size);
    expect(Number((keyRows as Array<{ n: number }>)[0]?.n)).toBe(keys.size);
  }, 90_000);

  it('hands deliveries whose bookkeeping failed in a MariaDB stall back as soon as it answers, each sent once', async () => {
    const fake = await startFakeGithubRest();
    const token = 'github_pat_clusterOUTBOX0123456789';
    const repo = `fed-${Date.now().toString(36)}`;
    try {
      fake.allowToken(token, ['octo/cluster']);
      const store = await openStore(loadConfig({ DATABASE_URL: databaseUrl, PORT: '0' }), silent);
      const org = await store.findOrganisationBySlug(slug);
      const orgId = org?.id as string;
      const now = new Date();
      await store.putRepositoryLink({
        orgId,
        repo,
        host: 'github',
        repository: 'octo/cluster',
        apiUrl: fake.apiUrl,
        credential: encryptCredential(token, repositoryLinkCredentialContext(orgId, repo), {
          sessionSecret: SESSION_SECRET,
        }),
        credentialHint: '…6789',
        createdBy: 'usr_cluster',
        createdAt: now,
        updatedAt: now,
      });
      await store.close();
      // GitHub holds each request until the sender's 10 s time-out: the outcome of the first
      // delivery of each claimed batch is recorded during the stall and fails.
      await fake.setDown('hang');
      const shas = [1, 2, 3, 4].map((n) => String(n).repeat(40));
      for (const [index, sha] of shas.entries()) {
        const response = await fetch(`${(started()[index % 2] as BuiltServer).url}/v1/executions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            org: slug,
            repo,
            branch: 'feature',
            coverage: 80,
            commit: sha,
            pull_request: 60 + index,
            patch: { covered: 21, coverable: 23 },
          }),
        });
        expect(response.status).toBe(201);
      }
      await sleep(1_000);
      mysqlProxy.stall();
      await sleep(12_000);
      await fake.setDown(null);
      await sleep(Math.max(0, STALL_MS - 12_000));
      mysqlProxy.resume();
      const resumedAt = performance.now();
      const delivered = () =>
        fake.statuses.filter((status) => shas.includes(status.sha)).length +
        shas.filter((_, index) => fake.commentsOf('octo/cluster', 60 + index).length > 0).length;

      await expect.poll(delivered, { timeout: 60_000, interval: 250 }).toBe(12);
      const after = (performance.now() - resumedAt) / 1000;
      const handedBack = started().map(
        (server) =>
          server
            .stdout()
            .split('\n')
            .filter((line) => line.includes('claimed deliveries back (the store failed)')).length,
      );
      console.info(
        `[cluster] outbox after a ${STALL_MS / 1000} s MariaDB stall during sending: 12 of 12 deliveries delivered ${after.toFixed(1)} s after the stall (lease 120 s); hand-back lines per process ${handedBack.join(', ')}; load ${loadavg()[0]?.toFixed(2)}`,
      );
      // The claims were taken about STALL_MS + 1 s before the resume: their 120 s lease would
      // have held them some 100 s more.
      expect(after).toBeLessThan(30);
      await sleep(3_000);
      expect(new Set(fake.statuses.map((status) => `${status.sha} ${status.context}`)).size).toBe(
        fake.statuses.length,
      );
      for (let index = 0; index < 4; index += 1) {
        expect(fake.commentsOf('octo/cluster', 60 + index)).toHaveLength(1);
      }
    } finally {
      await fake.close();
    }
  }, 120_000);

  it('drains on SIGTERM under load: every acknowledged ingest stored, exit code 0', async () => {
    const [a, b] = started();
    const repo = `drain-${Date.now().toString(36)}`;
    let acknowledged = 0;
    let refused = 0;
    const loop = async () => {
      // Until the stopped process refuses the connection.
      for (let i = 0; ; i++) {
        try {
          const response = await ingest(b, repo, 50 + (i % 50));
          if (response.status === 201) acknowledged++;
          await response.text();
        } catch {
          refused++;
          return;
        }
      }
    };
    const loops = [loop(), loop(), loop(), loop()];
    await sleep(1_500);
    const code = await b.stop('SIGTERM');
    await Promise.all(loops);
    const listing = await fetch(`${a.url}/v1/executions?org=${slug}&repo=${repo}&limit=1`, {
      headers: { authorization: `Bearer ${apiToken}` },
    });
    const { total } = (await listing.json()) as { total: number };
    const connection = await createConnection(databaseUrl);
    const [rows] = await connection.query('SELECT COUNT(*) AS n FROM executions WHERE repo = ?', [
      repo,
    ]);
    await connection.end();
    const stored = Number((rows as Array<{ n: number }>)[0]?.n);
    console.log(
      `[cluster] SIGTERM under load: exit ${code}, ${acknowledged} acknowledged, ${stored} stored, counter ${total}, ${refused} loops ended by a refused connection`,
    );
    expect(code).toBe(0);
    expect(acknowledged).toBeGreaterThan(0);
    expect(stored).toBe(acknowledged);
    expect(total).toBe(acknowledged);
  }, 60_000);
});
