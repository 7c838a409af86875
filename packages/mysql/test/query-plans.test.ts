import { createMySqlStore, migrate } from '@covgate/mysql';
import {
  PLAN_CASE_NAMES,
  PLAN_RUN_COLUMNS,
  planRows,
  statementsOfPlanCase,
} from '@covgate/test-support/query-plan-cases';
import { createTestApi, type TestApi } from '@covgate/testing';
import { createConnection, createPool, type Pool } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every query the routes a page or CI calls most run on MariaDB uses an index when the tables
 * are big (issue 45): each statement the store sends while answering them is explained, and no
 * plan may read a whole table (`type: ALL`) or a whole index (`type: index`).
 */
const serverUrl = process.env.COVGATE_MYSQL_URL;
const DATABASE = `covgate_${serverUrl ? new URL(serverUrl).pathname.slice(1) || 'test' : 'test'}_plans`;
const ROWS_PER_INSERT = 2_000;
const OTHER_ORG = 'org_plans_other';

/** A statement the store sent: its text and parameters. */
interface SentStatement {
  sql: string;
  params: unknown[];
}

/** Records every statement sent through `pool`, its transactions' connections included. */
function recordStatements(pool: Pool): { sent: SentStatement[] } {
  const recorder = { sent: [] as SentStatement[] };
  const record = (query: unknown, params: unknown) => {
    const text = typeof query === 'string' ? query : (query as { sql: string }).sql;
    recorder.sent.push({ sql: text, params: Array.isArray(params) ? params : [] });
  };
  const wrap = <T extends { query: Pool['query'] }>(target: T): T => {
    const query = target.query.bind(target) as (...args: unknown[]) => unknown;
    target.query = ((...args: unknown[]) => {
      record(args[0], args[1]);
      return query(...args);
    }) as T['query'];
    return target;
  };
  wrap(pool);
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = async () => wrap(await getConnection());
  return recorder;
}

const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** {@link planRows} of `orgId` inserted, `ROWS_PER_INSERT` rows a statement. */
async function seedRuns(pool: Pool, orgId: string, prefix: string): Promise<void> {
  const { runs, files, counters } = planRows(orgId, prefix, stamp);
  const columns = PLAN_RUN_COLUMNS.map((column) => `\`${column}\``).join(', ');
  for (let from = 0; from < runs.length; from += ROWS_PER_INSERT) {
    await pool.query(`INSERT INTO executions (${columns}) VALUES ?`, [
      runs.slice(from, from + ROWS_PER_INSERT),
    ]);
  }
  await pool.query('INSERT INTO execution_files (execution_id, org_id, data) VALUES ?', [files]);
  await pool.query(
    'INSERT INTO execution_counters (org_id, repo, total, latest_id, latest_created_at) VALUES ?',
    [counters],
  );
}

/** The plan rows of `statement` that read a whole table or a whole index. */
async function fullScans(pool: Pool, statement: SentStatement) {
  const [plan] = await pool.query(`EXPLAIN ${statement.sql}`, statement.params);
  return (plan as { table: string | null; type: string | null }[])
    .filter((row) => row.type === 'ALL' || row.type === 'index')
    .map((row) => ({ sql: statement.sql, table: row.table, type: row.type }));
}

describe.skipIf(!serverUrl)('MariaDB query plans at 40 000 runs', () => {
  let pool: Pool;
  let recorder: { sent: SentStatement[] };
  let t: TestApi;
  let apiToken: string;
  let session: string;
  let orgSlug: string;

  beforeAll(async () => {
    const base = new URL(serverUrl as string);
    base.pathname = '/';
    const admin = await createConnection(base.toString());
    await admin.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``);
    await admin.query(`CREATE DATABASE \`${DATABASE}\``);
    await admin.end();
    base.pathname = `/${DATABASE}`;
    await migrate({ url: base.toString() });
    pool = createPool({ uri: base.toString(), connectionLimit: 4 });
    t = createTestApi({ store: createMySqlStore({ pool }) });
    const org = await t.createOrganisation('enterprise');
    orgSlug = org.slug;
    apiToken = (await t.insertToken(org)).secret;
    session = (await t.createSession(org)).token;
    await pool.query(
      "INSERT INTO organisations (id, slug, name, plan, created_at) VALUES (?, 'plans-other', 'other', 'team', NOW())",
      [OTHER_ORG],
    );
    await seedRuns(pool, org.id, 'a');
    await seedRuns(pool, OTHER_ORG, 'b');
    await pool.query('ANALYZE TABLE executions, execution_files, execution_counters');
    recorder = recordStatements(pool);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
  });

  it.each(PLAN_CASE_NAMES)('%s reads no table or index whole', async (name) => {
    const context = { orgSlug, apiToken, session, prefix: 'a' };
    const statements = await statementsOfPlanCase(t, context, name, recorder.sent);
    const scans = [];
    for (const statement of statements) scans.push(...(await fullScans(pool, statement)));
    expect(scans).toEqual([]);
  });
});
