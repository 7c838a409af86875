import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import { providerASignature } from '@covgate/test-support/provider-a-signature';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

/**
 * The rotation runbook (docs/operations/rotation.md) run against two built reference-server
 * processes on one SQLite file, behind a client-side round robin (the load balancer): every
 * secret is rotated by three rolling restarts while clients keep sending requests, and not
 * one request may fail. Nothing here is timed: each step waits for what it needs (a process
 * listening, a process having served each kind of request), with generous bounds.
 */
const runnable = isServerBuilt();
if (!runnable) {
  console.warn('[covgate] secret rotation suite SKIPPED: build the server first (pnpm build)');
}

/** The five rotatable secrets, each with its old and new value. */
const SECRETS = {
  SERVICE_TOKEN: [
    'rotation-service-token-old-0123456789abcdef',
    'rotation-service-token-new-fedcba9876543210',
  ],
  SESSION_SECRET: [
    'rotation-session-secret-old-0123456789abcdef',
    'rotation-session-secret-new-fedcba987654321',
  ],
  TOKEN_PEPPER: ['rotation-pepper-old-0123456789abcdef', 'rotation-pepper-new-fedcba9876543210'],
  PROVIDER_A_WEBHOOK_SECRET: ['whsec_rotation_old_0123456789', 'whsec_rotation_new_9876543210'],
  PROVIDER_B_WEBHOOK_SECRET: ['provider-b-rotation-old-0123', 'provider-b-rotation-new-9876'],
} as const;
type SecretName = keyof typeof SECRETS;
const NAMES = Object.keys(SECRETS) as SecretName[];

/**
 * The runbook's stages: `accept` keeps the old value current and accepts the new one,
 * `switch` makes the new one current and still accepts the old one, `done` drops the old one.
 */
type Stage = 'old' | 'accept' | 'switch' | 'done';

function secretsFor(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of NAMES) {
    const [oldValue, newValue] = SECRETS[name];
    if (stage === 'old') env[name] = oldValue;
    if (stage === 'accept')
      Object.assign(env, { [name]: oldValue, [`${name}_PREVIOUS`]: newValue });
    if (stage === 'switch')
      Object.assign(env, { [name]: newValue, [`${name}_PREVIOUS`]: oldValue });
    if (stage === 'done') env[name] = newValue;
  }
  return env;
}

type Kind =
  | 'api-token'
  | 'old-session'
  | 'new-session'
  | 'service-token'
  | 'provider-a'
  | 'provider-b';
const KINDS: Kind[] = [
  'api-token',
  'old-session',
  'new-session',
  'service-token',
  'provider-a',
  'provider-b',
];

interface Failure {
  kind: Kind;
  stage: Stage;
  answer: string;
}

const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!runnable)('rotating every secret on running servers under traffic', () => {
  let dataDir: string;
  let orgId: string;
  let slug: string;
  let oldSession: string;
  /** Every process started, for clean-up. */
  const started: BuiltServer[] = [];
  /** The processes the load balancer sends to, in order. */
  let pool: BuiltServer[] = [];
  let stage: Stage = 'old';

  const envFor = (target: Stage) => ({
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    PORT: '0',
    COVGATE_DATA_DIR: dataDir,
    ENTERPRISE_RATE_LIMIT: '1000000',
    SESSION_RATE_LIMIT: '1000000',
    TOKEN_CREATE_RATE_LIMIT: '1000',
    ...secretsFor(target),
  });

  async function start(target: Stage): Promise<BuiltServer> {
    // Several processes start on a machine other suites load too: no tight bound.
    const server = await startBuiltServer(envFor(target), { listenTimeoutMs: 120_000 });
    started.push(server);
    return server;
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'covgate-rotation-'));
    const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
    slug = `rotation-${Date.now().toString(36)}`;
    const boot = await bootstrapOrganisation(store, {
      slug,
      plan: 'enterprise',
      userId: 'usr_rotation',
      sessionSecret: SECRETS.SESSION_SECRET[0],
      sessionLifetimeSeconds: undefined,
    });
    await store.close();
    orgId = boot.organisation.id;
    oldSession = boot.sessionToken;
    pool = [await start('old'), await start('old')];
  }, 300_000);

  afterAll(async () => {
    await Promise.all(started.map((server) => server.kill()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every request through three rolling restarts of both processes', async () => {
    // An API token made before the rotation: hashed under the old pepper.
    const created = await fetch(`${pool[0]?.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${oldSession}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rotation' }),
    });
    expect(created.status).toBe(201);
    const apiToken = ((await created.json()) as { secret: string }).secret;

    /** What the clients and providers hold: switched to the new values after `accept`. */
    const held: Record<'serviceToken' | 'a' | 'b', string> = {
      serviceToken: SECRETS.SERVICE_TOKEN[0],
      a: SECRETS.PROVIDER_A_WEBHOOK_SECRET[0],
      b: SECRETS.PROVIDER_B_WEBHOOK_SECRET[0],
    };
    /** The pre-rotation session is used until its secret is about to be dropped (as if expired). */
    let useOldSession = true;
    const failures: Failure[] = [];
    const served = new Map<BuiltServer, Map<Kind, number>>();
    const answered = new Map<Stage, number>();
    let next = 0;
    let events = 0;

    /**
     * Sends one request to the next process of the pool and checks its status. Like a load
     * balancer, a request whose connection failed (a keep-alive socket closed by a draining
     * process as the request went out) is sent once more to the next process; an HTTP answer
     * is never retried.
     */
    async function send(kind: Kind, path: string, init: RequestInit, expected: number) {
      const during = stage;
      let server = pool[next++ % pool.length] as BuiltServer;
      let answer = '';
      let response: Response | undefined;
      for (let attempt = 0; attempt < 2 && response === undefined; attempt++) {
        if (attempt > 0) server = pool[next++ % pool.length] as BuiltServer;
        try {
          response = await fetch(`${server.url}${path}`, init);
          answer = `${response.status} ${await response.clone().text()}`;
        } catch (error) {
          answer = `network error: ${(error as Error).message}`;
        }
      }
      if (response?.status !== expected) {
        failures.push({ kind, stage: during, answer });
        return undefined;
      }
      const counts = served.get(server) ?? new Map<Kind, number>();
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      served.set(server, counts);
      answered.set(during, (answered.get(during) ?? 0) + 1);
      return response;
    }

    const json = (body: unknown, headers: Record<string, string> = {}) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

    async function oneRound(): Promise<void> {
      const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
      await send(
        'api-token',
        `/v1/executions?org=${slug}&repo=web`,
        { headers: bearer(apiToken) },
        200,
      );
      if (useOldSession)
        await send('old-session', '/v1/session', { headers: bearer(oldSession) }, 200);
      const session = await send(
        'service-token',
        '/v1/sessions/create',
        json({ user_id: 'usr_rotation', org_id: orgId }, bearer(held.serviceToken)),
        201,
      );
      if (session) {
        const { token } = (await session.json()) as { token: string };
        await send('new-session', '/v1/session', { headers: bearer(token) }, 200);
      }
      events += 1;
      const bodyA = JSON.stringify({ id: `evt_rotation_${events}`, type: 'invoice.paid' });
      await send(
        'provider-a',
        '/v1/webhooks/provider-a',
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'provider-a-signature': providerASignature(
              bodyA,
              held.a,
              Math.floor(Date.now() / 1000),
            ),
          },
          body: bodyA,
        },
        200,
      );
      const bodyB = JSON.stringify({ event: 'payment.captured', n: events });
      await send(
        'provider-b',
        '/v1/webhooks/provider-b',
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-provider-b-signature': createHmac('sha256', held.b).update(bodyB).digest('hex'),
            'x-provider-b-event-id': `evt_rotation_b_${events}`,
          },
          body: bodyB,
        },
        200,
      );
    }

    let running = true;
    const clients = Array.from({ length: 3 }, async () => {
      while (running) await oneRound();
    });

    /** Resolves once `server` has answered every kind of request the clients send now. */
    async function servedEveryKind(server: BuiltServer): Promise<void> {
      const kinds = KINDS.filter((kind) => kind !== 'old-session' || useOldSession);
      for (let waited = 0; waited < 120_000; waited += 50) {
        const counts = served.get(server);
        if (kinds.every((kind) => (counts?.get(kind) ?? 0) >= 2)) return;
        if (failures.length > 0) return;
        await sleep(50);
      }
      throw new Error(`${server.url} did not serve every kind of request within 120 s`);
    }

    /**
     * Replaces the processes one at a time, as a rolling deployment does: the new process
     * starts and joins the pool, then the old one leaves it and is stopped (draining what it
     * has in flight), and the new one must have served every kind of request.
     */
    async function rollTo(target: Stage): Promise<void> {
      for (let index = 0; index < 2; index++) {
        const replacement = await start(target);
        const old = pool[index] as BuiltServer;
        pool = pool.map((server) => (server === old ? replacement : server));
        expect(await old.stop('SIGTERM')).toBe(0);
        await servedEveryKind(replacement);
      }
      stage = target;
    }

    try {
      for (const server of pool) await servedEveryKind(server);
      await rollTo('accept');
      // Every process accepts the new values now: clients and providers switch to them.
      held.serviceToken = SECRETS.SERVICE_TOKEN[1];
      held.a = SECRETS.PROVIDER_A_WEBHOOK_SECRET[1];
      held.b = SECRETS.PROVIDER_B_WEBHOOK_SECRET[1];
      for (const server of pool) await servedEveryKind(server);
      await rollTo('switch');
      // The old secrets go once every session stored under the old SESSION_SECRET has expired:
      // here the pre-rotation session simply stops being used.
      useOldSession = false;
      await rollTo('done');
      for (const server of pool) await servedEveryKind(server);
    } finally {
      running = false;
      await Promise.all(clients);
    }

    expect(failures).toEqual([]);
    for (const each of ['old', 'accept', 'switch', 'done'] as const) {
      expect(answered.get(each) ?? 0).toBeGreaterThan(0);
    }
    // The token made under the old pepper was re-hashed under the new one (and still works
    // with the old pepper gone, as the traffic of the last stage shows).
    const rehashes = started.flatMap((server) =>
      server
        .stdout()
        .split('\n')
        .filter((line) => line.includes('[audit] token.rehash')),
    );
    expect(rehashes.length).toBeGreaterThan(0);
    expect(rehashes.join('\n')).not.toContain(apiToken);
    // Once the old session secret is dropped, the pre-rotation session has ended.
    const ended = await fetch(`${pool[0]?.url}/v1/session`, {
      headers: { authorization: `Bearer ${oldSession}` },
    });
    expect(ended.status).toBe(401);
    // And the old service token is refused.
    const oldService = await fetch(
      `${pool[1]?.url}/v1/sessions/create`,
      json(
        { user_id: 'u', org_id: orgId },
        { authorization: `Bearer ${SECRETS.SERVICE_TOKEN[0]}` },
      ),
    );
    expect(oldService.status).toBe(401);
  }, 900_000);
});
