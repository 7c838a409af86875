import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import {
  type BuiltServer,
  isServerBuilt,
  startBuiltServer,
} from '@covgate/test-support/built-server';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapOrganisation } from '../src/bootstrap.js';
import { loadConfig } from '../src/config.js';
import { openStore } from '../src/open-store.js';

const built = isServerBuilt();
if (!built) console.warn('[covgate] gzip bomb test SKIPPED: build the reference server first');

const MIB = 1024 * 1024;
const BOMBS = 64;
const SESSION_SECRET = 'gzip-bomb-session-secret-0123456789abcdef';
const silent = pino({ base: null }, new Writable({ write: (_c, _e, done) => done() }));

/**
 * A 1 GiB gzip bomb under the 1 MiB wire limit: 64 members of 16 MiB of zeros, one after the
 * other (a gzip stream may hold several members; each inflates to 16 MiB).
 */
function gigabyteBomb(): Uint8Array<ArrayBuffer> {
  const member = gzipSync(Buffer.alloc(16 * MIB), { level: 9 });
  return Buffer.concat(Array.from({ length: 64 }, () => member));
}

/** Resident memory now and its peak since the process started, in MiB (`/proc`, Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

describe.skipIf(!built || process.platform !== 'linux')(
  `${BOMBS} concurrent 1 GiB gzip bombs against the built server`,
  () => {
    let dataDir: string;
    let server: BuiltServer;
    let session: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'covgate-gzip-bombs-'));
      const store = await openStore(loadConfig({ COVGATE_DATA_DIR: dataDir, PORT: '0' }), silent);
      const boot = await bootstrapOrganisation(store, {
        slug: 'bombs',
        plan: 'enterprise',
        userId: 'usr_bombs',
        sessionSecret: SESSION_SECRET,
        sessionLifetimeSeconds: undefined,
      });
      await store.close();
      session = boot.sessionToken;
      server = await startBuiltServer(
        {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          PORT: '0',
          COVGATE_DATA_DIR: dataDir,
          SESSION_SECRET,
          SESSION_RATE_LIMIT: '1000000',
        },
        { listenTimeoutMs: 120_000 },
      );
    }, 180_000);

    afterAll(async () => {
      await server?.kill();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    const ingest = (body: Uint8Array<ArrayBuffer>) =>
      fetch(`${server.url}/v1/executions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${session}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body,
      });

    it('refuses each with 413 or 503, answers /health meanwhile, and its peak memory grows by less than 256 MiB', async () => {
      const run = { repo: 'web', branch: 'main', coverage: 50 };
      expect((await ingest(gzipSync(JSON.stringify(run)))).status).toBe(201);
      const bomb = gigabyteBomb();
      const before = memoryOf(server.pid);

      let flooding = true;
      const healthStatuses: number[] = [];
      const health = (async () => {
        while (flooding) {
          healthStatuses.push((await fetch(`${server.url}/health`)).status);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      const answers = await Promise.all(
        Array.from({ length: BOMBS }, async () => {
          const response = await ingest(bomb);
          return {
            status: response.status,
            retryAfter: response.headers.get('retry-after'),
            body: await response.json(),
          };
        }),
      );
      flooding = false;
      await health;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const after = memoryOf(server.pid);

      const counts = { 413: 0, 503: 0 };
      for (const answer of answers) {
        if (answer.status === 413) {
          expect(answer).toEqual({
            status: 413,
            retryAfter: null,
            body: { error: 'payload too large' },
          });
        } else {
          expect(answer).toEqual({
            status: 503,
            retryAfter: '1',
            body: { error: 'service unavailable' },
          });
        }
        counts[answer.status as 413 | 503] += 1;
      }
      console.log(
        `[gzip] ${BOMBS} concurrent 1 GiB bombs (${(bomb.byteLength / MIB).toFixed(2)} MiB each on the wire): ${counts[413]} answered 413, ${counts[503]} answered 503; server RSS ${before.rss.toFixed(0)} MiB before, peak ${after.peak.toFixed(0)} MiB (+${(after.peak - before.rss).toFixed(0)} MiB), ${after.rss.toFixed(0)} MiB 1 s after; /health answered ${healthStatuses.length} times meanwhile`,
      );
      expect(counts[413] + counts[503]).toBe(BOMBS);
      expect(healthStatuses.every((status) => status === 200)).toBe(true);
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect(after.peak - before.rss).toBeLessThan(256);
      expect(server.stdout()).toContain('[ratelimit] gzip bodies inflating at once');
    }, 120_000);
  },
);
