import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@covgate/core';
import { createSqliteStore, MIGRATIONS_FOLDER, migrate, SqliteStoreError } from '@covgate/sqlite';
import {
  buildExecution,
  buildOrganisation,
  buildTokenRecord,
  captureLogs,
  createTestApi,
} from '@covgate/testing';
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
  it("fills the repositories' latest record for data written before migration 0001", async () => {
    const at = (seconds: number) => 1_772_366_400_000 + seconds * 1000;
    await withStoreAfter(
      '0001',
      [
        `INSERT INTO executions (id, org_id, repo, branch, outcome, delta, coverage, created_at) VALUES
        ('exe_a', 'org_1', 'web', 'main', 'pass', '0.00', 80, ${at(0)}),
        ('exe_c', 'org_1', 'web', 'dev', 'fail', '-2.00', 78, ${at(5)}),
        ('exe_b', 'org_1', 'web', 'main', 'pass', '0.00', 80, ${at(5)}),
        ('exe_d', 'org_1', 'api', 'main', 'warn', '-0.60', 70, ${at(2)})`,
        `INSERT INTO execution_counters (org_id, repo, total) VALUES ('org_1', 'web', 3), ('org_1', 'api', 1)`,
      ],
      async (store) => {
        const repos = await store.listRepositories('org_1');
        expect(repos.map((r) => [r.repo, r.total, r.latest.id, r.latest.commit])).toEqual([
          ['web', 3, 'exe_c', null],
          ['api', 1, 'exe_d', null],
        ]);
      },
    );
  });

  it('reads records written before migration 0007 with their baseline, patch and component unknown (all null)', async () => {
    await withStoreAfter(
      '0007',
      [
        `INSERT INTO executions (id, org_id, repo, branch, outcome, delta, coverage, "commit", created_at) VALUES
        ('exe_old', 'org_1', 'web', 'feature', 'warn', '-0.60', 79.4, 'abcdef1', 1772366400000)`,
      ],
      async (store) => {
        expect(await store.listExecutions({ orgId: 'org_1', repo: 'web', limit: 10 })).toEqual([
          // Every field the old row did not set reads back null: the builder's default for each
          // but the base branch and the deciding rule.
          buildExecution({
            id: 'exe_old',
            orgId: 'org_1',
            repo: 'web',
            branch: 'feature',
            outcome: 'warn',
            delta: '-0.60',
            coverage: 79.4,
            commit: 'abcdef1',
            createdAt: new Date(1_772_366_400_000),
            baseBranch: null,
            decidedBy: null,
          }),
        ]);
      },
    );
  });

  it('links personal organisations made before migration 0003 to their users, never older namesakes', async () => {
    const at = (seconds: number) => 1_772_366_400_000 + seconds * 1000;
    await withStoreAfter(
      '0003',
      [
        `INSERT INTO users (id, provider, external_id, login, created_at) VALUES
        ('usr_1', 'github', '4242', 'octo', ${at(0)}),
        ('usr_2', 'github', '4243', 'late', ${at(0)})`,
        `INSERT INTO organisations (id, slug, name, plan, created_at) VALUES
        ('org_1', 'github-4242', 'octo', 'free', ${at(0)}),
        ('org_2', 'github-4243', 'Made by an admin first', 'team', ${at(-100)}),
        ('org_3', 'acme', 'Acme', 'free', ${at(0)})`,
      ],
      async (store) => {
        expect(await store.findPersonalOrganisation('usr_1')).toEqual({
          id: 'org_1',
          slug: 'github-4242',
          name: 'octo',
          plan: 'free',
          createdAt: new Date(at(0)),
        });
        expect(await store.findPersonalOrganisation('usr_2')).toBeNull();
      },
    );
  });

  it('makes the users of sessions and personal organisations made before migration 0006 owners', async () => {
    const at = (seconds: number) => 1_772_366_400_000 + seconds * 1000;
    await withStoreAfter(
      '0006',
      [
        `INSERT INTO organisations (id, slug, name, plan, created_at, personal_user_id) VALUES
        ('org_acme', 'acme', 'Acme', 'free', ${at(0)}, NULL),
        ('org_octo', 'github-4242', 'octo', 'free', ${at(5)}, 'usr_octo')`,
        `INSERT INTO sessions (id, token_hash, user_id, org_id, created_at, expires_at) VALUES
        ('ses_1', 'h1', 'usr_admin', 'org_acme', ${at(30)}, ${at(90)}),
        ('ses_2', 'h2', 'usr_admin', 'org_acme', ${at(10)}, ${at(70)}),
        ('ses_3', 'h3', 'usr_octo', 'org_octo', ${at(20)}, ${at(80)}),
        ('ses_4', 'h4', 'usr_ghost', 'org_gone', ${at(20)}, ${at(80)})`,
        `INSERT INTO sign_in_links (id, token_hash, user_id, org_id, created_at, expires_at) VALUES
        ('lnk_1', 'l1', 'usr_admin', 'org_acme', ${at(0)}, ${at(900)})`,
      ],
      async (store) => {
        expect(await store.listMembers('org_acme')).toEqual([
          {
            orgId: 'org_acme',
            userId: 'usr_admin',
            role: 'owner',
            createdAt: new Date(at(10)),
            login: null,
          },
        ]);
        expect(await store.listMembers('org_octo')).toEqual([
          {
            orgId: 'org_octo',
            userId: 'usr_octo',
            role: 'owner',
            createdAt: new Date(at(5)),
            login: null,
          },
        ]);
        expect(await store.listUserOrganisations('usr_ghost')).toEqual([]);
        expect((await store.useSignInLink('l1', new Date(at(1))))?.role).toBe('owner');
      },
    );
  });

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

  it('keeps coverage to two decimals, like a DECIMAL(5,2) column', async () => {
    const store = await createSqliteStore({ url: ':memory:' });
    try {
      const record = buildExecution({ coverage: 84.1234 });
      await store.insertExecution(record);

      const [listed] = await store.listExecutions({ ...record, limit: 1 });
      expect(listed?.coverage).toBe(84.12);
    } finally {
      await store.close();
    }
  });

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

  it('logs a failure once: the store line, then the access line, nothing from the API', async () => {
    const logs = captureLogs();
    const store = await createSqliteStore({ url: ':memory:', logger: logs.storeLogger });
    const t = createTestApi({ store, logs });
    await store.close();

    const response = await t.request('/v1/auth/validate', {
      method: 'POST',
      headers: { authorization: `Bearer cvg_${'a'.repeat(40)}` },
    });

    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"internal error"}');
    expect(logs.lines().map(({ level, msg }) => ({ level, msg }))).toEqual([
      {
        level: 50,
        msg: '[tokens] findTokenById failed: CLIENT_CLOSED: CLIENT_CLOSED: The client is closed',
      },
      { level: 30, msg: 'request' },
    ]);
  });

  it('refuses to open a file that is not a SQLite database', async () => {
    const path = join(directory, 'not-a-database.db');
    writeFileSync(path, 'this is plain text, not a database file '.repeat(50));

    await expect(createSqliteStore({ url: `file:${path}` })).rejects.toThrow(/NOTADB/);
  });
});
