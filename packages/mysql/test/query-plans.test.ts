import { gzipSync } from 'node:zlib';
import { createMySqlStore, migrate } from '@covgate/mysql';
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
const REPOS = 10;
const RUNS_PER_REPO = 2_000;
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

/** `RUNS_PER_REPO` runs in each of `REPOS` repositories of `orgId`, every fifth with a file list. */
async function seedRuns(pool: Pool, orgId: string, prefix: string): Promise<void> {
  const files = gzipSync(JSON.stringify([['src/a.ts', 3, 4]]));
  const start = Date.UTC(2025, 0, 1);
  const rows: unknown[][] = [];
  const fileRows: unknown[][] = [];
  for (let index = 0; index < REPOS * RUNS_PER_REPO; index += 1) {
    const id = `exe_${prefix}${String(index).padStart(20, '0')}`;
    const withFiles = index % 5 === 0;
    rows.push([
      id,
      orgId,
      `repo-${index % REPOS}`,
      index % 10 === 9 ? 'feature/x' : 'main',
      index % 20 === 3 ? 'fail' : 'pass',
      '+0.00',
      (60 + (index % 30)).toFixed(2),
      (index + 1).toString(16).padStart(40, '0'),
      stamp(start + index * 60_000),
      'main',
      withFiles ? 1 : null,
    ]);
    if (withFiles) fileRows.push([id, orgId, files]);
  }
  for (let from = 0; from < rows.length; from += ROWS_PER_INSERT) {
    await pool.query(
      'INSERT INTO executions (id, org_id, repo, branch, outcome, delta, coverage, `commit`, created_at, base_branch, file_count) VALUES ?',
      [rows.slice(from, from + ROWS_PER_INSERT)],
    );
  }
  await pool.query('INSERT INTO execution_files (execution_id, org_id, data) VALUES ?', [fileRows]);
  const counters = Array.from({ length: REPOS }, (_, repo) => {
    const newest = REPOS * (RUNS_PER_REPO - 1) + repo;
    return [
      orgId,
      `repo-${repo}`,
      RUNS_PER_REPO,
      `exe_${prefix}${String(newest).padStart(20, '0')}`,
      stamp(start + newest * 60_000),
    ];
  });
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

const EXPLAINABLE = /^\s*(select|update|delete)\b/i;

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

  const cases: [string, () => { path: string; init?: RequestInit; status: number }][] = [
    ['list', () => ({ path: `/v1/executions?org=${orgSlug}&repo=repo-3`, status: 200 })],
    [
      'filtered list',
      () => ({
        path: `/v1/executions?org=${orgSlug}&repo=repo-3&branch=main&outcome=fail`,
        status: 200,
      }),
    ],
    [
      'series of 1 000 points',
      () => ({ path: `/v1/executions/series?org=${orgSlug}&repo=repo-3&limit=1000`, status: 200 }),
    ],
    [
      'headline',
      () => ({
        path: `/v1/repos/headline?org=${orgSlug}&repo=repo-3`,
        init: { headers: { authorization: `Bearer ${session}` } },
        status: 200,
      }),
    ],
    [
      'run detail',
      () => ({ path: `/v1/executions/exe_a${String(19_990).padStart(20, '0')}`, status: 200 }),
    ],
    ['badge', () => ({ path: `/v1/badge/${orgSlug}/repo-3`, status: 200 })],
    [
      'ingest',
      () => ({
        path: '/v1/executions',
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            repo: 'repo-3',
            branch: 'main',
            coverage: 75,
            commit: 'f'.repeat(40),
            files: [{ path: 'src/a.ts', covered: 3, coverable: 4 }],
          }),
        },
        status: 201,
      }),
    ],
    [
      'members',
      () => ({
        path: '/v1/members',
        init: { headers: { authorization: `Bearer ${session}` } },
        status: 200,
      }),
    ],
  ];

  it.each(cases)('%s reads no table or index whole', async (_name, request) => {
    const { path, init, status } = request();
    const headers = new Headers(init?.headers);
    if (!headers.has('authorization') && !path.startsWith('/v1/badge')) {
      headers.set('authorization', `Bearer ${apiToken}`);
    }
    recorder.sent.length = 0;
    const response = await t.request(path, { ...init, headers });
    expect(response.status, await response.clone().text()).toBe(status);
    const statements = recorder.sent.filter((statement) => EXPLAINABLE.test(statement.sql));
    expect(statements.length).toBeGreaterThan(0);
    const scans = [];
    for (const statement of statements) scans.push(...(await fullScans(pool, statement)));
    expect(scans).toEqual([]);
  });
});
