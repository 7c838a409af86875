// Fills a database with many runs for the scale measurement (issue 45, item 2): N runs
// (default 1 000 000) over 10 000 repositories in 100 enterprise-plan organisations, every
// fifth run with a per-file list, and 10 members per organisation, through the stores' own
// schema (their migrations run first).
//
//   pnpm --filter "@covgate/mysql..." --filter "@covgate/sqlite..." build
//   node bench/scale-seed.mjs [--runs 1000000] [--repos 10000] [--orgs 100]
//        [--mysql mysql://root@127.0.0.1:3306/covgate_scale_bench] [--sqlite PATH]
//
// Without `--mysql`, `COVGATE_MYSQL_URL`'s server with the database `covgate_scale_bench`
// (created if absent); `--mysql ''` with `--sqlite PATH` fills only the embedded store's file.
// Half the runs go to each organisation's first repository (`repo-0000` of `scale-000` holds
// runs / 200 of them), the other half spread over the rest.
// Idempotent: a store that already holds exactly this data set is left alone; one holding
// another size is emptied of the set's organisations and filled again. Progress and the time
// taken go to stderr. Organisation `i` has slug `scale-<i>` (three digits) and repositories
// `repo-<j>` (four digits); the last run of each repository is on `main`.
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

const fromPackage = (name) =>
  createRequire(new URL(`../packages/${name}/package.json`, import.meta.url));

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000000' },
    repos: { type: 'string', default: '10000' },
    orgs: { type: 'string', default: '100' },
    mysql: { type: 'string' },
    sqlite: { type: 'string', default: '' },
  },
});
const RUNS = Number(values.runs);
const REPOS = Number(values.repos);
const ORGS = Number(values.orgs);
const MEMBERS_PER_ORG = 10;
const FILES_PER_LIST = 40;
const ROWS_PER_INSERT = 2_000;
const PARALLEL_INSERTS = 4;
const START = Date.UTC(2024, 0, 1);
const SPACING_MS = 60_000;
if (!(RUNS > 0 && REPOS > 0 && ORGS > 0 && REPOS % ORGS === 0)) {
  throw new Error('--runs, --repos and --orgs must be positive, --repos a multiple of --orgs');
}
const REPOS_PER_ORG = REPOS / ORGS;

const log = (message) => process.stderr.write(`${message}\n`);

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const base32 = (value, length) => {
  let text = '';
  let rest = BigInt(value);
  for (let index = 0; index < length; index += 1) {
    text = CROCKFORD[Number(rest % 32n)] + text;
    rest /= 32n;
  }
  return text;
};
const pad = (value, width) => String(value).padStart(width, '0');

const orgId = (org) => `org_scale${pad(org, 3)}`;
const orgSlug = (org) => `scale-${pad(org, 3)}`;
const repoName = (repo) => `repo-${pad(repo, 4)}`;

/** A few distinct per-file lists, stored as core's `encodeFileList` stores them. */
const FILE_LISTS = Array.from({ length: 8 }, (_, variant) => {
  const rows = [];
  for (let file = 0; file < FILES_PER_LIST; file += 1) {
    const coverable = 20 + ((file * 37 + variant) % 200);
    rows.push([
      `src/module-${pad(file % 8, 2)}/file-${pad(file, 3)}.ts`,
      (file * 13 + variant * 7) % (coverable + 1),
      coverable,
    ]);
  }
  rows.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return gzipSync(JSON.stringify(rows), { level: 4 });
});

/**
 * Where run `index` (0-based, global) goes: even runs to each organisation's first repository
 * (100 busy repositories holding half the runs, so a series of 1 000 points exists), odd runs
 * spread over the other repositories; `nth` is its place among its repository's runs.
 */
function placeOf(index) {
  const half = Math.floor(index / 2);
  if (index % 2 === 0 || REPOS_PER_ORG === 1) {
    const org = half % ORGS;
    return { org, repo: org * REPOS_PER_ORG, nth: Math.floor(half / ORGS) };
  }
  const quiet = REPOS - ORGS;
  const slot = half % quiet;
  const org = Math.floor(slot / (REPOS_PER_ORG - 1));
  return {
    org,
    repo: org * REPOS_PER_ORG + 1 + (slot % (REPOS_PER_ORG - 1)),
    nth: Math.floor(half / quiet),
  };
}

/** Run `index`, one minute after run `index - 1`. */
function run(index) {
  const { org, repo, nth } = placeOf(index);
  const createdAt = START + index * SPACING_MS;
  const id = `exe_${base32(createdAt, 10)}${base32(index, 16)}`;
  const outcome = nth % 20 === 3 ? 'fail' : nth % 7 === 5 ? 'warn' : 'pass';
  const branch = nth % 10 === 9 ? 'feature/scale' : 'main';
  const coverage = (6000 + ((index * 7) % 3500)) / 100;
  const withFiles = index % 5 === 0;
  return {
    id,
    orgId: orgId(org),
    repo: repoName(repo),
    branch,
    outcome,
    coverage,
    commit: (index + 1).toString(16).padStart(40, '0'),
    createdAt,
    fileCount: withFiles ? FILES_PER_LIST : null,
    files: withFiles ? FILE_LISTS[index % FILE_LISTS.length] : null,
  };
}

/** Each repository's run count and newest run (the last index placed in it). */
function repoTotals() {
  const totals = new Map();
  for (let index = 0; index < RUNS; index += 1) {
    const { repo } = placeOf(index);
    totals.set(repo, { total: (totals.get(repo)?.total ?? 0) + 1, newest: index });
  }
  return totals;
}

const mysqlStamp = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** What each store needs to be filled: its connection, its timestamp form, its multi-row INSERT. */
async function mysqlTarget(serverUrl) {
  const mysql = fromPackage('mysql')('mysql2/promise');
  const { migrate } = await import('../packages/mysql/dist/index.js');
  const url = new URL(serverUrl);
  const database = url.pathname.slice(1) || 'covgate_scale_bench';
  url.pathname = '/';
  const admin = await mysql.createConnection(url.toString());
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database}\``);
  await admin.end();
  url.pathname = `/${database}`;
  await migrate({ url: url.toString() });
  const pool = mysql.createPool({ uri: url.toString(), connectionLimit: PARALLEL_INSERTS });
  return {
    name: `MariaDB ${database}`,
    stamp: mysqlStamp,
    parallel: PARALLEL_INSERTS,
    query: async (text, params = []) => (await pool.query(text, params))[0],
    insert: (table, columns, rows) =>
      pool.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ?`, [rows]),
    finish: async () => {
      await pool.query(
        'ANALYZE TABLE executions, execution_files, execution_counters, memberships',
      );
      await pool.end();
    },
  };
}

async function sqliteTarget(path) {
  const { createClient } = fromPackage('sqlite')('@libsql/client');
  const { migrate } = await import('../packages/sqlite/dist/index.js');
  const url = `file:${path}`;
  await migrate({ url });
  const client = createClient({ url });
  await client.execute('PRAGMA journal_mode = WAL');
  return {
    name: `SQLite ${path}`,
    stamp: (ms) => ms,
    // One writer: SQLite serialises them anyway.
    parallel: 1,
    query: async (text, params = []) => (await client.execute({ sql: text, args: params })).rows,
    insert: async (table, columns, rows) => {
      const placeholders = `(${columns.map(() => '?').join(', ')})`;
      // SQLite's default limit is 32 766 bound variables per statement.
      const perStatement = Math.floor(32_000 / columns.length);
      const statements = [];
      for (let from = 0; from < rows.length; from += perStatement) {
        const chunk = rows.slice(from, from + perStatement);
        statements.push({
          sql: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => placeholders).join(', ')}`,
          args: chunk.flat(),
        });
      }
      await client.batch(statements, 'write');
    },
    finish: async () => {
      await client.execute('ANALYZE');
      await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
      client.close();
    },
  };
}

const EXECUTION_COLUMNS = [
  'id',
  'org_id',
  'repo',
  'branch',
  'outcome',
  'delta',
  'coverage',
  '`commit`',
  'created_at',
  'base_branch',
  'file_count',
];

async function alreadySeeded(target) {
  const rows = await target.query(
    "SELECT COUNT(*) AS repos, SUM(total) AS runs FROM execution_counters WHERE org_id LIKE 'org_scale%'",
  );
  return Number(rows[0].repos) === repoTotals().size && Number(rows[0].runs) === RUNS;
}

async function empty(target) {
  const prefix = "LIKE 'org_scale%'";
  await target.query(`DELETE FROM execution_files WHERE org_id ${prefix}`);
  await target.query(`DELETE FROM executions WHERE org_id ${prefix}`);
  await target.query(`DELETE FROM execution_counters WHERE org_id ${prefix}`);
  await target.query(`DELETE FROM memberships WHERE org_id ${prefix}`);
  await target.query("DELETE FROM users WHERE id LIKE 'usr_scale%'");
  await target.query(`DELETE FROM organisations WHERE id ${prefix}`);
}

async function seed(target) {
  if (await alreadySeeded(target)) {
    log(`${target.name}: already holds ${RUNS} runs over ${REPOS} repositories`);
    return;
  }
  const started = performance.now();
  await empty(target);
  const quoted = (name) => name.replaceAll('`', target.name.startsWith('SQLite') ? '"' : '`');
  const stamp0 = target.stamp(START);
  await target.insert(
    'organisations',
    ['id', 'slug', 'name', 'plan', 'created_at'],
    Array.from({ length: ORGS }, (_, org) => [
      orgId(org),
      orgSlug(org),
      orgSlug(org),
      'enterprise',
      stamp0,
    ]),
  );
  const users = [];
  const memberships = [];
  for (let org = 0; org < ORGS; org += 1) {
    for (let member = 0; member < MEMBERS_PER_ORG; member += 1) {
      const id = `usr_scale${pad(org, 3)}${pad(member, 2)}`;
      users.push([
        id,
        'github',
        `${900_000_000 + org * 100 + member}`,
        `scale-user-${id.slice(9)}`,
        stamp0,
      ]);
      memberships.push([orgId(org), id, member === 0 ? 'owner' : 'member', stamp0]);
    }
  }
  await target.insert('users', ['id', 'provider', 'external_id', 'login', 'created_at'], users);
  await target.insert('memberships', ['org_id', 'user_id', 'role', 'created_at'], memberships);

  let next = 0;
  let reported = 0;
  const worker = async () => {
    while (next < RUNS) {
      const from = next;
      const to = Math.min(RUNS, from + ROWS_PER_INSERT);
      next = to;
      const runs = [];
      const files = [];
      for (let index = from; index < to; index += 1) {
        const r = run(index);
        runs.push([
          r.id,
          r.orgId,
          r.repo,
          r.branch,
          r.outcome,
          '+0.00',
          r.coverage.toFixed(2),
          r.commit,
          target.stamp(r.createdAt),
          'main',
          r.fileCount,
        ]);
        if (r.files) files.push([r.id, r.orgId, r.files]);
      }
      await target.insert('executions', EXECUTION_COLUMNS.map(quoted), runs);
      if (files.length > 0) {
        await target.insert('execution_files', ['execution_id', 'org_id', 'data'], files);
      }
      if (to - reported >= 100_000) {
        reported = to;
        log(
          `${target.name}: ${to} runs written (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: target.parallel }, worker));

  const counters = [...repoTotals().values()].map(({ total, newest }) => {
    const r = run(newest);
    return [r.orgId, r.repo, total, r.id, target.stamp(r.createdAt)];
  });
  for (let from = 0; from < counters.length; from += ROWS_PER_INSERT) {
    await target.insert(
      'execution_counters',
      ['org_id', 'repo', 'total', 'latest_id', 'latest_created_at'],
      counters.slice(from, from + ROWS_PER_INSERT),
    );
  }
  log(
    `${target.name}: seeded ${RUNS} runs (${Math.ceil(RUNS / 5)} with per-file lists) over ${REPOS} repositories in ${ORGS} organisations in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

const mysqlUrl =
  values.mysql ??
  (() => {
    const url = new URL(process.env.COVGATE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/');
    url.pathname = '/covgate_scale_bench';
    return url.toString();
  })();
const targets = [];
if (mysqlUrl) targets.push(await mysqlTarget(mysqlUrl));
if (values.sqlite) targets.push(await sqliteTarget(values.sqlite));
for (const target of targets) {
  try {
    await seed(target);
  } finally {
    await target.finish();
  }
}
