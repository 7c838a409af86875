import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServers,
} from '@covgate/test-support/built-server';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

/**
 * Two built reference-server processes on one embedded SQLite file: concurrent requests with
 * one idempotency key race through two connections in two processes, as they do when a
 * second instance is started on the same data folder.
 */
const runnable = isServerBuilt();
if (!runnable) {
  console.warn('[covgate] SQLite two-process suite SKIPPED: build the server first (pnpm build)');
}

const SESSION_SECRET = 'sqlite-processes-secret-0123456789abcdef';
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

describe.skipIf(!runnable)('two processes on one SQLite file', () => {
  let dataDir: string;
  let servers: BuiltServer[] = [];
  let slug: string;
  let apiToken: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'covgate-sqlite-processes-'));
    const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
    slug = `sqlite-${Date.now().toString(36)}`;
    const boot = await bootstrapOrganisation(store, {
      slug,
      plan: 'enterprise',
      userId: 'usr_sqlite_processes',
      sessionSecret: SESSION_SECRET,
      sessionLifetimeSeconds: undefined,
    });
    await store.close();
    const env = {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      PORT: '0',
      SESSION_SECRET,
      ENTERPRISE_RATE_LIMIT: '1000000',
      COVGATE_DATA_DIR: dataDir,
    };
    servers = await startBuiltServers(2, env);
    const created = await fetch(`${servers[0]?.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${boot.sessionToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'sqlite-processes' }),
    });
    expect(created.status).toBe(201);
    apiToken = ((await created.json()) as { secret: string }).secret;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.kill()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('stores one execution per key when 20 requests with that key race across both processes', async () => {
    const repo = 'raced';
    const keys = ['race-1', 'race-2', 'race-3', 'race-4', 'race-5'];
    for (const [round, key] of keys.entries()) {
      const body = JSON.stringify({ org: slug, repo, branch: 'main', coverage: 60 + round });
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${servers[i % 2]?.url}/v1/executions`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${apiToken}`,
              'content-type': 'application/json',
              'idempotency-key': key,
            },
            body,
          }),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
      const texts = await Promise.all(responses.map((response) => response.text()));
      expect(new Set(texts).size).toBe(1);
      expect(responses.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(
        1,
      );
    }

    const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
    try {
      const org = await store.findOrganisationBySlug(slug);
      const rows = await store.listExecutions({ orgId: org?.id ?? '', repo, limit: 100 });
      expect(rows).toHaveLength(keys.length);
      expect(await store.countExecutions(org?.id ?? '', repo)).toBe(keys.length);
    } finally {
      await store.close();
    }
  }, 60_000);
});
