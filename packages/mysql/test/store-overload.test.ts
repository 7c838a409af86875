import { generateApiToken, StoreOverloadError } from '@covgate/core';
import { createMySqlStore, migrate } from '@covgate/mysql';
import { buildTokenRecord, createTestApi } from '@covgate/testing';
import { createConnection, createPool, type Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const serverUrl = process.env.COVGATE_MYSQL_URL;
const required = process.env.COVGATE_REQUIRE_MYSQL === '1';
if (!serverUrl && !required) {
  console.warn('[covgate] MySQL store overload test SKIPPED: set COVGATE_MYSQL_URL');
}

/** The server of `COVGATE_MYSQL_URL`, without its database. */
const serverOnly = (base: string) => {
  const url = new URL(base);
  url.pathname = '/';
  return url.toString();
};

/** A database of this file's own, named after the URL's, so parallel suites keep apart. */
const DATABASE = `covgate_overload_${serverUrl ? new URL(serverUrl).pathname.slice(1) || 'test' : 'test'}`;

describe.skipIf(!serverUrl && !required)('a MySQL store whose pool overflows', () => {
  let url: string;

  beforeAll(async () => {
    if (!serverUrl) throw new Error('COVGATE_REQUIRE_MYSQL=1 needs COVGATE_MYSQL_URL');
    const admin = await createConnection(serverOnly(serverUrl));
    try {
      await admin.query(`CREATE DATABASE IF NOT EXISTS \`${DATABASE}\``);
    } finally {
      await admin.end();
    }
    const target = new URL(serverUrl);
    target.pathname = `/${DATABASE}`;
    url = target.toString();
    await migrate({ url });
  }, 120_000);

  /** One connection, busy with a 1.5 s query, and room for one waiting call. */
  async function overflowingPool(): Promise<{ pool: Pool; busy: Promise<unknown> }> {
    const pool = createPool({ uri: url, connectionLimit: 1, queueLimit: 1 });
    await pool.query('SELECT 1');
    const busy = pool.query('SELECT SLEEP(1.5)');
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { pool, busy };
  }

  afterAll(async () => {
    if (!serverUrl) return;
    const admin = await createConnection(serverOnly(serverUrl));
    try {
      await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
    } finally {
      await admin.end();
    }
  });

  it('refuses a call past the wait queue as an overload, logged once, and says when calls succeed again', async () => {
    const { pool, busy } = await overflowingPool();
    const errors: string[] = [];
    const infos: string[] = [];
    const store = createMySqlStore({
      pool,
      deadlineMs: 5_000,
      logger: { error: (line) => errors.push(line), info: (line) => infos.push(line) },
    });
    try {
      const id = buildTokenRecord().id;
      const waiting = store.findTokenById(id);
      const refused = await Promise.all([
        store.findTokenById(id).catch((error: unknown) => error),
        store.findTokenById(id).catch((error: unknown) => error),
      ]);
      for (const error of refused) {
        expect(error).toBeInstanceOf(StoreOverloadError);
        expect(error).toMatchObject({
          message: '[tokens] findTokenById failed: POOL_QUEUE_FULL',
          code: 'POOL_QUEUE_FULL',
        });
      }
      expect(errors).toEqual([
        '[tokens] findTokenById failed: Error: Queue limit reached.; the store is overloaded: answering 503 until a call succeeds again',
      ]);
      expect(infos).toEqual([]);
      expect(await waiting).toBeNull();
      expect(infos).toEqual([
        '[tokens] store calls succeed again after an overload; 2 answered 503',
      ]);
      expect(errors).toHaveLength(1);
      await busy;
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it('answers 503 with Retry-After through the API, not 500', async () => {
    const { pool, busy } = await overflowingPool();
    const store = createMySqlStore({ pool, deadlineMs: 5_000, logger: { error: () => {} } });
    const api = createTestApi({ store });
    // Two tokens: a request for a token being verified would share that verification.
    const validate = (token = generateApiToken().token) =>
      api.request('/v1/auth/validate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    try {
      const waiting = validate();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const response = await validate();
      expect(response.status).toBe(503);
      expect(Object.fromEntries(response.headers)).toEqual({
        'content-type': 'application/json; charset=utf-8',
        'retry-after': '1',
        vary: 'Origin',
        'x-request-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect(await response.json()).toEqual({ error: 'service unavailable' });
      expect((await waiting).status).toBe(401);
      expect(api.logs.lines().filter((line) => Number(line.level) >= 50)).toEqual([]);
      await busy;
    } finally {
      await store.close();
      await pool.end();
    }
  });
});
