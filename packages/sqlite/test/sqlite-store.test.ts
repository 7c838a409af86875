import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@covgate/core';
import { createSqliteStore, MIGRATIONS_FOLDER, migrate, SqliteStoreError } from '@covgate/sqlite';
import { expectFailureLoggedOnce } from '@covgate/test-support/failure-logging';
import { legacyDataCases } from '@covgate/test-support/legacy-data';
import { sqlColumnCases } from '@covgate/test-support/sql-columns';
import { buildExecution, buildOrganisation, buildTokenRecord } from '@covgate/testing';
import { runStoreConformanceSuite } from '@covgate/testing/vitest';
import { createClient } from '@libsql/client';
import { drizzle } from 'drizzle-orm/libsql';
import { migrate as applyMigrations } from 'drizzle-orm/libsql/migrator';
import { afterAll, describe, expect, it } from 'vitest';

const directory = mkdtempSync(join(tmpdir(), 'covgate-sqlite-'));
const fileUrl = (name: string): string => `file:${join(directory, name)}`;

afterAll(() => rmSync(directory, { recursive: true, force: true }));

runStoreConformanceSuite('sqlite file', {
  createStore: () => createSqliteStore({ url: fileUrl('conformance.db') }),
  createPeerStore: () => createSqliteStore({ url: fileUrl('conformance.db'), migrate: false }),
});
runStoreConformanceSuite('sqlite :memory:', {
  createStore: () => createSqliteStore({ url: ':memory:' }),
});

/** Runs `query` on a separate connection to the file and returns the first row. */
async function firstRow(url: string, query: string): Promise<Record<string, unknown> | undefined> {
  const client = createClient({ url });
  try {
    return (await client.execute(query)).rows[0];
  } finally {
    client.close();
  }
}

/**
 * Runs `check` on a store over a database of its own made as an older release left it: the
 * shipped migrations before `firstLeftOut` (a tag such as `0007`) and then `seed`'s statements;
 * opening the store applies the rest.
 */
async function withStoreAfter(
  firstLeftOut: string,
  seed: string[],
  check: (store: Store) => Promise<void>,
): Promise<void> {
  const before = join(directory, `migrations-before-${firstLeftOut}`);
  cpSync(new URL('../drizzle', import.meta.url), before, { recursive: true });
  const journalPath = join(before, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
  journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < firstLeftOut);
  writeFileSync(journalPath, JSON.stringify(journal));
  const url = fileUrl(`before-${firstLeftOut}.db`);
  const client = createClient({ url });
  try {
    await applyMigrations(drizzle(client), { migrationsFolder: before });
    await client.batch(seed);
  } finally {
    client.close();
  }
  const store = await createSqliteStore({ url });
  try {
    await check(store);
  } finally {
    await store.close();
  }
}

describe('sqlite store', () => {
  // A loop, not it.each: the titles are whole sentences, which it.each would quote and cut.
  const legacyData = legacyDataCases({
    // Timestamps are stored as Unix milliseconds.
    literal: (instant) => String(instant.getTime()),
    commitColumn: '"commit"',
  });
  for (const { name, firstLeftOut, seed, check } of legacyData) {
    it(name, () => withStoreAfter(firstLeftOut, seed, check));
  }

  it('keeps every record after the store is closed and the file reopened', async () => {
    const url = fileUrl('persistence.db');
    const org = buildOrganisation();
    const token = buildTokenRecord({ orgId: org.id, scopes: ['execute', 'read'] });
    const execution = buildExecution({ orgId: org.id, repo: 'Persist' });
    const writer = await createSqliteStore({ url });
    await writer.createOrganisation(org);
    await writer.insertToken(token);
    await writer.insertExecution(execution);
    await writer.claimWebhookEvent('provider-a', 'evt_1', new Date());
    await writer.close();

    const reader = await createSqliteStore({ url });
    try {
      expect(await reader.findOrganisationBySlug(org.slug)).toEqual(org);
      expect(await reader.findTokenById(token.id)).toEqual(token);
      expect(await reader.listExecutions({ orgId: org.id, repo: 'Persist', limit: 10 })).toEqual([
        execution,
      ]);
      expect(await reader.countExecutions(org.id, 'Persist')).toBe(1);
      expect(await reader.claimWebhookEvent('provider-a', 'evt_1', new Date())).toBe(false);
    } finally {
      await reader.close();
    }
  });

  it('applies migrations idempotently: reopening and migrating again change nothing', async () => {
    const url = fileUrl('idempotent.db');
    await migrate({ url });
    await migrate({ url });
    const store = await createSqliteStore({ url });
    await store.close();

    const shipped = JSON.parse(
      readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
    );
    expect(shipped.entries.length).toBeGreaterThanOrEqual(4);
    expect(await firstRow(url, 'SELECT COUNT(*) AS n FROM __drizzle_migrations')).toEqual({
      n: shipped.entries.length,
    });
  });

  for (const { name, check } of sqlColumnCases) {
    it(name, async () => {
      const store = await createSqliteStore({ url: ':memory:' });
      try {
        await check(store);
      } finally {
        await store.close();
      }
    });
  }

  it('puts the file in WAL mode so readers do not block the writer', async () => {
    const url = fileUrl('wal.db');
    const store = await createSqliteStore({ url });
    await store.close();

    expect(await firstRow(url, 'PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
  });

  it('keeps totals exact with 100 parallel inserts through two stores on one file', async () => {
    const url = fileUrl('shared.db');
    const stores = [await createSqliteStore({ url }), await createSqliteStore({ url })];
    try {
      const first = buildExecution();
      const records = Array.from({ length: 100 }, () =>
        buildExecution({ orgId: first.orgId, repo: first.repo }),
      );

      await Promise.all(records.map((record, index) => stores[index % 2]!.insertExecution(record)));

      expect(await stores[0]!.countExecutions(first.orgId, first.repo)).toBe(100);
      expect(await stores[1]!.listExecutions({ ...first, limit: 100 })).toHaveLength(100);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('logs a prefixed line and throws a message free of SQL when a table is missing', async () => {
    const lines: string[] = [];
    const store = await createSqliteStore({
      url: ':memory:',
      migrate: false,
      logger: { error: (line) => lines.push(line) },
    });
    try {
      const error = await store.countExecutions('org_x', 'repo').catch((e: unknown) => e);

      expect(error).toBeInstanceOf(SqliteStoreError);
      expect((error as Error).message).toBe('[executions] countExecutions failed: SQLITE_ERROR');
      expect(lines).toEqual([
        '[executions] countExecutions failed: SQLITE_ERROR: SQLITE_ERROR: no such table: execution_counters',
      ]);
    } finally {
      await store.close();
    }
  });

  it('fails like any infrastructure error once closed', async () => {
    const lines: string[] = [];
    const store = await createSqliteStore({
      url: ':memory:',
      logger: { error: (line) => lines.push(line) },
    });
    await store.close();

    await expect(store.findTokenById('x')).rejects.toThrow(
      '[tokens] findTokenById failed: CLIENT_CLOSED',
    );
    expect(lines[0]).toMatch(/^\[tokens\] findTokenById failed: CLIENT_CLOSED/);
  });

  it('logs a failure once: the store line, then the access line, nothing from the API', () =>
    expectFailureLoggedOnce(async (logger) => {
      const store = await createSqliteStore({ url: ':memory:', logger });
      await store.close();
      return store;
    }, '[tokens] findTokenById failed: CLIENT_CLOSED: CLIENT_CLOSED: The client is closed'));

  it('refuses to open a file that is not a SQLite database', async () => {
    const path = join(directory, 'not-a-database.db');
    writeFileSync(path, 'this is plain text, not a database file '.repeat(50));

    await expect(createSqliteStore({ url: `file:${path}` })).rejects.toThrow(/NOTADB/);
  });
});
