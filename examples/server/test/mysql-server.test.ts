import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';
import { type ReferenceServer, startReferenceServer } from '../src/reference-server.js';

const mysqlUrl = process.env.COVGATE_MYSQL_URL;
if (!mysqlUrl) {
  console.warn(
    '[covgate] reference server on MySQL SKIPPED: set COVGATE_MYSQL_URL=mysql://root@127.0.0.1:3306/test',
  );
}
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

describe.skipIf(!mysqlUrl && process.env.COVGATE_REQUIRE_MYSQL !== '1')(
  'reference server with DATABASE_URL=mysql://',
  () => {
    let server: ReferenceServer | undefined;
    let dataDir: string | undefined;
    afterAll(async () => {
      await server?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('migrates MySQL at start-up and serves a token, an execution and its listing from it', async () => {
      if (!mysqlUrl) throw new Error('COVGATE_REQUIRE_MYSQL=1 but COVGATE_MYSQL_URL is unset');
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-mysql-server-'));
      const config = loadConfig({ DATABASE_URL: mysqlUrl, PORT: '0', COVGATE_DATA_DIR: dataDir });
      const store = await openStore(config, silent);
      const slug = `mysql-${Date.now().toString(36)}`;
      const sessionSecret = 's'.repeat(40);
      const boot = await bootstrapOrganisation(store, {
        slug,
        plan: 'team',
        userId: 'usr_admin',
        sessionSecret,
        sessionLifetimeSeconds: undefined,
      });
      server = await startReferenceServer({ ...config, sessionSecret }, store, silent);

      const created = await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${boot.sessionToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ name: 'ci' }),
      });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };
      const ingest = await fetch(`${server.url}/v1/executions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ repo: 'web', branch: 'main', coverage: 91.5 }),
      });
      expect(ingest.status).toBe(201);
      const list = await fetch(`${server.url}/v1/executions?org=${slug}&repo=web`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      const body = (await list.json()) as { executions: { coverage: number }[]; total: number };
      expect(body.total).toBe(1);
      expect(body.executions[0]?.coverage).toBe(91.5);
      expect(list.headers.get('ratelimit-limit')).toBe('600');
    });
  },
);
