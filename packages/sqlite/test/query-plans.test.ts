import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '@covgate/sqlite';
import {
  PLAN_CASE_NAMES,
  PLAN_RUN_COLUMNS,
  planRows,
  statementsOfPlanCase,
} from '@covgate/test-support/query-plan-cases';
import { createTestApi, type TestApi } from '@covgate/testing';
import type { Client, InArgs, InStatement } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * Every query the routes a page or CI calls most run on the embedded store uses an index when
 * the tables are big (issue 45), as `packages/mysql/test/query-plans.test.ts` checks on
 * MariaDB: each statement the store sends while answering them goes through
 * `EXPLAIN QUERY PLAN`, and no step may read a whole table or index (`SCAN <table>`, with or
 * without `USING INDEX`), nor may a statement on `executions` sort in a temporary B-tree
 * (`USE TEMP B-TREE`). Other statements may sort what an index found: one run's deliveries,
 * one organisation's members.
 */

/** A statement the store sent: its text and positional parameters. */
interface SentStatement {
  sql: string;
  args: unknown[];
}

const recorder = vi.hoisted(() => ({ sent: [] as { sql: string; args: unknown[] }[] }));

// Every client the store opens records what it sends, batches included.
vi.mock('@libsql/client', async (importOriginal) => {
  const original = await importOriginal<typeof import('@libsql/client')>();
  const record = (statement: InStatement, args?: InArgs) => {
    const sql = typeof statement === 'string' ? statement : statement.sql;
    const given = typeof statement === 'string' ? args : statement.args;
    recorder.sent.push({ sql, args: Array.isArray(given) ? given : [] });
  };
  return {
    ...original,
    createClient: (...config: Parameters<typeof original.createClient>): Client => {
      const client = original.createClient(...config);
      const execute = client.execute.bind(client) as (...call: unknown[]) => unknown;
      const batch = client.batch.bind(client);
      client.execute = ((statement: InStatement, args?: InArgs) => {
        record(statement, args);
        return execute(statement, args);
      }) as Client['execute'];
      client.batch = ((statements: InStatement[], mode) => {
        for (const statement of statements) record(statement);
        return batch(statements, mode);
      }) as Client['batch'];
      return client;
    },
  };
});

const OTHER_ORG = 'org_plans_other';
/** SQLite's default limit is 32 766 bound variables per statement. */
const ROWS_PER_INSERT = Math.floor(32_000 / PLAN_RUN_COLUMNS.length);

/** `INSERT`s of `rows` into `table`, as many rows a statement as the variable limit allows. */
function inserts(table: string, columns: readonly string[], rows: unknown[][]): InStatement[] {
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  const names = columns.map((column) => `\`${column}\``).join(', ');
  const statements: InStatement[] = [];
  for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
    const chunk = rows.slice(from, from + ROWS_PER_INSERT);
    statements.push({
      sql: `INSERT INTO ${table} (${names}) VALUES ${chunk.map(() => placeholders).join(', ')}`,
      args: chunk.flat() as InArgs,
    });
  }
  return statements;
}

/** Statements reading the runs table, the one that grows with every ingest. */
const ON_RUNS = /\bfrom\s+"executions"/i;

/**
 * The steps of `statement`'s plan that read a whole table or index, or that sort the runs in a
 * temporary tree.
 */
async function fullScans(client: Client, statement: SentStatement) {
  const plan = await client.execute({
    sql: `EXPLAIN QUERY PLAN ${statement.sql}`,
    args: statement.args as InArgs,
  });
  const sortsRuns = ON_RUNS.test(statement.sql);
  return plan.rows
    .map((row) => String(row.detail))
    .filter(
      (detail) =>
        /^SCAN (?!CONSTANT ROW)/.test(detail) || (sortsRuns && /TEMP B-TREE/.test(detail)),
    )
    .map((detail) => ({ sql: statement.sql, detail }));
}

describe('SQLite query plans at 40 000 runs', () => {
  const directory = mkdtempSync(join(tmpdir(), 'covgate-sqlite-plans-'));
  const url = `file:${join(directory, 'covgate.db')}`;
  let explainer: Client;
  let t: TestApi;
  let apiToken: string;
  let session: string;
  let orgSlug: string;

  beforeAll(async () => {
    const store = await createSqliteStore({ url });
    t = createTestApi({ store });
    const org = await t.createOrganisation('enterprise');
    orgSlug = org.slug;
    apiToken = (await t.insertToken(org)).secret;
    session = (await t.createSession(org)).token;
    const { createClient } =
      await vi.importActual<typeof import('@libsql/client')>('@libsql/client');
    explainer = createClient({ url });
    const stamp = (ms: number) => ms;
    const statements: InStatement[] = [
      {
        sql: "INSERT INTO organisations (id, slug, name, plan, created_at) VALUES (?, 'plans-other', 'other', 'team', ?)",
        args: [OTHER_ORG, Date.UTC(2025, 0, 1)],
      },
    ];
    for (const [orgId, prefix] of [
      [org.id, 'a'],
      [OTHER_ORG, 'b'],
    ] as const) {
      const { runs, files, counters } = planRows(orgId, prefix, stamp);
      statements.push(
        ...inserts('executions', PLAN_RUN_COLUMNS, runs),
        ...inserts('execution_files', ['execution_id', 'org_id', 'data'], files),
        ...inserts(
          'execution_counters',
          ['org_id', 'repo', 'total', 'latest_id', 'latest_created_at'],
          counters,
        ),
      );
    }
    await explainer.batch(statements, 'write');
    await explainer.execute('ANALYZE');
  }, 120_000);

  afterAll(async () => {
    explainer?.close();
    await t?.store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it.each(PLAN_CASE_NAMES)('%s reads no table or index whole', async (name) => {
    const context = { orgSlug, apiToken, session, prefix: 'a' };
    const statements = await statementsOfPlanCase(t, context, name, recorder.sent);
    const scans = [];
    for (const statement of statements) scans.push(...(await fullScans(explainer, statement)));
    expect(scans).toEqual([]);
  });
});
