import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Store } from '@covgate/core';
import { createMySqlStore, MIGRATIONS_FOLDER, MySqlStoreError, migrate } from '@covgate/mysql';
import { expectFailureLoggedOnce } from '@covgate/test-support/failure-logging';
import { legacyDataCases } from '@covgate/test-support/legacy-data';
import { sqlColumnCases } from '@covgate/test-support/sql-columns';
import { buildExecution, buildOrganisation, buildTokenRecord } from '@covgate/testing';
import { runStoreConformanceSuite } from '@covgate/testing/vitest';
import { drizzle } from 'drizzle-orm/mysql2';
import { migrate as applyMigrations } from 'drizzle-orm/mysql2/migrator';
import { createConnection, createPool } from 'mysql2/promise';
import { beforeAll, describe, expect, it } from 'vitest';

const serverUrl = process.env.COVGATE_MYSQL_URL;
const required = process.env.COVGATE_REQUIRE_MYSQL === '1';

/**
 * Tests run in their own database on the server named by `COVGATE_MYSQL_URL`, named after that
 * URL's database so that two checkouts testing against one server at once keep out of each
 * other's way.
 */
const TEST_DATABASE = `covgate_${serverUrl ? new URL(serverUrl).pathname.slice(1) || 'test' : 'test'}`;

function testDatabaseUrl(base: string): string {
  const url = new URL(base);
  url.pathname = `/${TEST_DATABASE}`;
  return url.toString();
}

async function createTestDatabase(base: string): Promise<void> {
  const url = new URL(base);
  const connection = await createConnection({
    host: url.hostname,
    port: url.port === '' ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  });
  try {
    // A case-insensitive database default on purpose: the schema must set its own collation.
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS \`${TEST_DATABASE}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`,
    );
  } finally {
    await connection.end();
  }
}

/**
 * Runs `check` on a store over a database of its own (dropped afterwards) made as an older
 * release left it: the shipped migrations before `firstLeftOut` (a tag such as `0007`), then
 * `seed`'s statements, then `migrate` to the latest.
 */
async function withStoreAfter(
  url: string,
  firstLeftOut: string,
  seed: string[],
  check: (store: Store) => Promise<void>,
): Promise<void> {
  const before = mkdtempSync(join(tmpdir(), `covgate-mysql-before-${firstLeftOut}-`));
  // Its own database per run: other runs may use the server at the same time.
  const database = `covgate_test_before_${firstLeftOut}_${process.pid}_${Date.now()}`;
  const olderUrl = new URL(url);
  olderUrl.pathname = `/${database}`;
  const admin = await createConnection(url);
  try {
    await admin.query(`CREATE DATABASE \`${database}\``);
  } finally {
    await admin.end();
  }
  try {
    cpSync(fileURLToPath(new URL('../drizzle', import.meta.url)), before, { recursive: true });
    const journalPath = join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
    journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < firstLeftOut);
    writeFileSync(journalPath, JSON.stringify(journal));
    const connection = await createConnection(olderUrl.toString());
    try {
      await applyMigrations(drizzle(connection), { migrationsFolder: before });
      for (const statement of seed) await connection.query(statement);
    } finally {
      await connection.end();
    }
    await migrate({ url: olderUrl.toString() });
    const store = createMySqlStore({ url: olderUrl.toString() });
    try {
      await check(store);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(before, { recursive: true, force: true });
    const cleanup = await createConnection(url);
    await cleanup.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await cleanup.end();
  }
}

/** A DATETIME literal of `instant` in UTC (the store's session time zone). */
const datetimeLiteral = (instant: Date): string =>
  `'${instant.toISOString().slice(0, 19).replace('T', ' ')}'`;

if (serverUrl === undefined || serverUrl === '') {
  console.warn(
    '[covgate] MySQL conformance suite SKIPPED: set COVGATE_MYSQL_URL=mysql://root@127.0.0.1:3306/test',
  );
  describe.skipIf(!required)('MySQL store configuration', () => {
    it('needs COVGATE_MYSQL_URL', () => {
      throw new Error('COVGATE_REQUIRE_MYSQL=1 but COVGATE_MYSQL_URL is unset');
    });
  });
} else {
  const url = testDatabaseUrl(serverUrl);

  beforeAll(async () => {
    // Any failure here (server unreachable...) fails every test of the file: never a skip.
    await createTestDatabase(serverUrl);
    await migrate({ url });
  });

  runStoreConformanceSuite('mysql', {
    createStore: async () => createMySqlStore({ url }),
    createPeerStore: async () => createMySqlStore({ url }),
  });

  describe('MySQL store', () => {
    it('applies migrations idempotently, concurrently too', async () => {
      await Promise.all([migrate({ url }), migrate({ url }), migrate({ url })]);
      const connection = await createConnection(url);
      try {
        const [rows] = await connection.query('SELECT COUNT(*) AS n FROM __drizzle_migrations');
        const shipped = JSON.parse(
          readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
        );
        expect(shipped.entries.length).toBeGreaterThanOrEqual(4);
        expect((rows as Array<{ n: number }>)[0]?.n).toBe(shipped.entries.length);
      } finally {
        await connection.end();
      }
    });

    // A loop, not it.each: the titles are whole sentences, which it.each would quote and cut.
    const legacyData = legacyDataCases({ literal: datetimeLiteral, commitColumn: '`commit`' });
    for (const { name, firstLeftOut, seed, check } of legacyData) {
      it(name, () => withStoreAfter(url, firstLeftOut, seed, check));
    }

    it('keeps Repo and repo apart in the counter table too', async () => {
      const store = createMySqlStore({ url });
      try {
        const lower = buildExecution({ repo: 'case-test' });
        const upper = buildExecution({ orgId: lower.orgId, repo: 'Case-Test' });
        await store.insertExecution(lower);
        await store.insertExecution(upper);
        await store.insertExecution(buildExecution({ orgId: lower.orgId, repo: 'Case-Test' }));

        expect(await store.countExecutions(lower.orgId, 'case-test')).toBe(1);
        expect(await store.countExecutions(lower.orgId, 'Case-Test')).toBe(2);
        expect(await store.countExecutions(lower.orgId, 'CASE-TEST')).toBe(0);
      } finally {
        await store.close();
      }
    });

    it('answers true for a plan or revocation that changes no value (matched, not changed)', async () => {
      const store = createMySqlStore({ url });
      try {
        const org = buildOrganisation({ plan: 'team' });
        const token = buildTokenRecord();
        await store.createOrganisation(org);
        await store.insertToken(token);

        expect(await store.setOrganisationPlan(org.id, 'team')).toBe(true);
        expect(await store.revokeToken(token.id)).toBe(true);
        expect(await store.revokeToken(token.id)).toBe(true);
      } finally {
        await store.close();
      }
    });

    it('works over a pool of yours and leaves it open on close', async () => {
      const pool = createPool(url);
      try {
        const store = createMySqlStore({ pool });
        const record = buildExecution();
        await store.insertExecution(record);
        await store.close();

        const [rows] = await pool.query('SELECT total FROM execution_counters WHERE org_id = ?', [
          record.orgId,
        ]);
        expect(rows).toEqual([{ total: 1 }]);
      } finally {
        await pool.end();
      }
    });

    it('counts the wait for a pooled connection in the deadline of a call', async () => {
      // The pool's only connection is busy for 1.5 s: the call waits for it, and fails once its
      // own 200 ms are up, not when the connection is free and its query has run.
      const pool = createPool({ uri: url, connectionLimit: 1 });
      const lines: string[] = [];
      const store = createMySqlStore({
        pool,
        deadlineMs: 200,
        logger: { error: (line) => lines.push(line) },
      });
      try {
        const busy = pool.query('SELECT SLEEP(1.5)');
        await new Promise((resolve) => setTimeout(resolve, 50));
        const started = performance.now();
        const error = await store.findTokenById(buildTokenRecord().id).catch((e: unknown) => e);
        const elapsed = performance.now() - started;
        expect((error as Error).message).toBe('[tokens] findTokenById failed: ETIMEDOUT');
        expect(lines).toEqual([
          '[tokens] findTokenById failed: ETIMEDOUT: no answer within 200 ms; the store is overloaded: answering 503 until a call succeeds again',
        ]);
        expect(elapsed).toBeGreaterThanOrEqual(199);
        expect(elapsed).toBeLessThan(1_000);
        await busy;
      } finally {
        await store.close();
        await pool.end();
      }
    });

    it('refuses a pool together with settings that make a pool', () => {
      const pool = createPool(url);
      try {
        expect(() => createMySqlStore({ pool, poolSize: 3 })).toThrow(/not both/);
        expect(() => createMySqlStore({ pool, url })).toThrow(/not both/);
      } finally {
        void pool.end();
      }
    });

    for (const { name, check } of sqlColumnCases) {
      it(name, async () => {
        const store = createMySqlStore({ url });
        try {
          await check(store);
        } finally {
          await store.close();
        }
      });
    }

    it('refuses a webhook event id longer than its column instead of truncating it', async () => {
      const lines: string[] = [];
      const store = createMySqlStore({ url, logger: { error: (line) => lines.push(line) } });
      try {
        const long = `evt_${'x'.repeat(300)}`;

        await expect(store.claimWebhookEvent('provider-a', long, new Date())).rejects.toThrow(
          MySqlStoreError,
        );
        expect(lines[0]).toMatch(/^\[webhooks\] claimWebhookEvent failed/);
      } finally {
        await store.close();
      }
    });
  });

  describe('MySQL store infrastructure failures', () => {
    const password = 'hunter2-s3cret';
    // Nothing listens on port 1: every query fails with ECONNREFUSED.
    const deadUrl = `mysql://covgate:${password}@127.0.0.1:1/covgate_test`;

    it('logs a prefixed line and throws a message free of host, SQL and password', async () => {
      const lines: string[] = [];
      const store = createMySqlStore({ url: deadUrl, logger: { error: (l) => lines.push(l) } });
      try {
        const error = await store.findTokenById(buildTokenRecord().id).catch((e: unknown) => e);

        expect(error).toBeInstanceOf(MySqlStoreError);
        const message = (error as Error).message;
        expect(message).toBe('[tokens] findTokenById failed: ECONNREFUSED');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^\[tokens\] findTokenById failed: ECONNREFUSED/);
        for (const text of [message, ...lines]) {
          expect(text).not.toContain(password);
          expect(text).not.toContain(deadUrl);
          expect(text.toLowerCase()).not.toContain('select');
        }
      } finally {
        await store.close();
      }
    });

    it('logs a failure once: the store line, then the access line, nothing from the API', () =>
      expectFailureLoggedOnce(
        async (logger) => createMySqlStore({ url: deadUrl, logger }),
        '[tokens] findTokenById failed: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1',
      ));

    it('uses the component prefix of the failing area', async () => {
      const lines: string[] = [];
      const store = createMySqlStore({ url: deadUrl, logger: { error: (l) => lines.push(l) } });
      try {
        await store.insertExecution(buildExecution()).catch(() => undefined);
        await store.findSessionById('ses_x').catch(() => undefined);
        await store.findOrganisationBySlug('acme').catch(() => undefined);
        await store.claimWebhookEvent('provider-a', 'evt_1', new Date()).catch(() => undefined);

        expect(lines.map((line) => line.split(' ')[0])).toEqual([
          '[executions]',
          '[sessions]',
          '[organisations]',
          '[webhooks]',
        ]);
      } finally {
        await store.close();
      }
    });

    it('never falls back to plaintext when sslmode=require meets a server without TLS', async () => {
      const lines: string[] = [];
      const tlsUrl = `${url}${url.includes('?') ? '&' : '?'}sslmode=require`;
      const store = createMySqlStore({ url: tlsUrl, logger: { error: (l) => lines.push(l) } });
      try {
        const server = await createConnection(url);
        const [rows] = await server.query("SHOW VARIABLES LIKE 'have_ssl'");
        await server.end();
        const hasTls = (rows as Array<{ Value: string }>)[0]?.Value === 'YES';

        const outcome = await store.countExecutions('org_x', 'repo').catch((e: unknown) => e);

        if (hasTls) expect(outcome).toBe(0);
        else expect(outcome).toBeInstanceOf(MySqlStoreError);
      } finally {
        await store.close();
      }
    });
  });
}
