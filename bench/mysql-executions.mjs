// Latency of the executions list (top 10) and of the per-repository total on MySQL/MariaDB,
// for a repository of 1 000 records and one of 1 000 000: the goal is a flat curve.
//
//   pnpm --filter "@covgate/mysql..." build
//   COVGATE_MYSQL_URL=mysql://root@127.0.0.1:3306/test node bench/mysql-executions.mjs
//
// Works in its own database `covgate_bench` on that server (created if absent). Seeding is
// skipped for a repository whose counter already holds the target. Progress goes to stderr;
// the Markdown section for bench/RESULTS.md goes to stdout.
import { execSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';

const packageRequire = createRequire(new URL('../packages/mysql/package.json', import.meta.url));
const mysql = packageRequire('mysql2/promise');
const { createMySqlStore, migrate } = await import('../packages/mysql/dist/index.js');

const serverUrl = process.env.COVGATE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const DATABASE = 'covgate_bench';
const ORG_ID = 'org_bench';
const REPOS = [
  { repo: 'bench-1k', size: 1_000 },
  { repo: 'bench-1m', size: 1_000_000 },
];
const ROWS_PER_INSERT = 2_000;
const PARALLEL_INSERTS = 4;
const WARM_UP = 200;
const ITERATIONS = 2_000;
const START = Date.UTC(2024, 0, 1);
const SPACING_MS = 30_000;

const log = (message) => process.stderr.write(`${message}\n`);

const url = new URL(serverUrl);
url.pathname = `/${DATABASE}`;
const benchUrl = url.toString();

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

/** Record `index` of a repository: an `exe_` ULID whose time part is its creation instant. */
function row(repoNumber, repo, index) {
  const createdAt = START + index * SPACING_MS;
  const id = `exe_${base32(createdAt, 10)}${base32(repoNumber * 10_000_000 + index, 16)}`;
  const outcome = index % 20 === 0 ? 'fail' : index % 7 === 0 ? 'warn' : 'pass';
  const branch = index % 10 === 0 ? 'feature/bench' : 'main';
  const coverage = (7000 + (index % 3000)) / 100;
  const stamp = new Date(createdAt).toISOString().slice(0, 19).replace('T', ' ');
  return [id, ORG_ID, repo, branch, outcome, '0.00', coverage.toFixed(2), stamp];
}

async function seed(pool, repoNumber, { repo, size }) {
  const [counters] = await pool.query(
    'SELECT total FROM execution_counters WHERE org_id = ? AND repo = ?',
    [ORG_ID, repo],
  );
  if (Number(counters[0]?.total ?? 0) === size) {
    log(`${repo}: already seeded with ${size} records`);
    return 0;
  }
  await pool.query('DELETE FROM executions WHERE org_id = ? AND repo = ?', [ORG_ID, repo]);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < size) {
      const from = next;
      const to = Math.min(size, from + ROWS_PER_INSERT);
      next = to;
      const rows = [];
      for (let index = from; index < to; index += 1) rows.push(row(repoNumber, repo, index));
      await pool.query(
        'INSERT INTO executions (id, org_id, repo, branch, outcome, delta, coverage, created_at) VALUES ?',
        [rows],
      );
      if (to % 100_000 === 0) log(`${repo}: records up to ${to} written`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_INSERTS }, worker));
  await pool.query(
    'INSERT INTO execution_counters (org_id, repo, total) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE total = VALUES(total)',
    [ORG_ID, repo, size],
  );
  const seconds = (performance.now() - started) / 1000;
  log(`${repo}: seeded ${size} records in ${seconds.toFixed(1)} s`);
  return seconds;
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/**
 * Times `operation(repo)` for every repository, alternating between them call by call so
 * that noise from other processes hits both sides alike.
 */
async function measure(operation) {
  for (let index = 0; index < WARM_UP; index += 1) {
    for (const { repo } of REPOS) await operation(repo);
  }
  const samples = Object.fromEntries(REPOS.map(({ repo }) => [repo, []]));
  for (let index = 0; index < ITERATIONS; index += 1) {
    for (const { repo } of REPOS) {
      const started = process.hrtime.bigint();
      await operation(repo);
      samples[repo].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return Object.fromEntries(
    Object.entries(samples).map(([repo, values]) => {
      values.sort((a, b) => a - b);
      return [repo, { p50: percentile(values, 0.5), p99: percentile(values, 0.99) }];
    }),
  );
}

const admin = await mysql.createConnection({
  host: url.hostname,
  port: url.port === '' ? 3306 : Number(url.port),
  user: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
});
await admin.query(`CREATE DATABASE IF NOT EXISTS \`${DATABASE}\``);
await admin.end();
await migrate({ url: benchUrl });

const pool = mysql.createPool({ uri: benchUrl, connectionLimit: PARALLEL_INSERTS });
const seedSeconds = {};
for (const [repoNumber, target] of REPOS.entries()) {
  seedSeconds[target.repo] = await seed(pool, repoNumber, target);
}
await pool.query('ANALYZE TABLE executions, execution_counters');

const listSql =
  'SELECT id, org_id, repo, branch, outcome, delta, coverage, created_at FROM executions ' +
  'WHERE org_id = ? AND repo = ? ORDER BY created_at DESC, id DESC LIMIT 10';
const baselineSql =
  'SELECT id FROM executions WHERE org_id = ? AND repo = ? AND branch = ? ' +
  'AND baseline_eligible = TRUE ORDER BY created_at DESC, id DESC LIMIT 1';
const explain = async (query, params) => {
  const [rows] = await pool.query(`EXPLAIN ${query}`, params);
  return rows;
};
const listPlan = await explain(listSql, [ORG_ID, 'bench-1m']);
// MariaDB's ANALYZE runs the query and reports the rows actually read (r_rows).
const [listAnalysis] = await pool
  .query(`ANALYZE ${listSql}`, [ORG_ID, 'bench-1m'])
  .catch(() => [[]]);
const baselinePlan = await explain(baselineSql, [ORG_ID, 'bench-1m', 'main']);
const [[{ version }]] = await pool.query('SELECT VERSION() AS version');
await pool.end();

const store = createMySqlStore({ url: benchUrl });
const loadAverage = loadavg()[0].toFixed(2);
log('measuring the list');
const list = await measure((repo) => store.listExecutions({ orgId: ORG_ID, repo, limit: 10 }));
log('measuring the total');
const total = await measure((repo) => store.countExecutions(ORG_ID, repo));
await store.close();
const results = Object.fromEntries(
  REPOS.map(({ repo }) => [repo, { list: list[repo], total: total[repo] }]),
);

const ms = (value) => value.toFixed(3);
const ratio = (kind, p) => (results['bench-1m'][kind][p] / results['bench-1k'][kind][p]).toFixed(2);
const cpuModel = (() => {
  try {
    return execSync("grep -m1 'model name' /proc/cpuinfo", { encoding: 'utf8' })
      .split(':')[1]
      .trim();
  } catch {
    return cpus()[0]?.model ?? 'unknown';
  }
})();
const PLAN_COLUMNS = [
  'id',
  'select_type',
  'table',
  'type',
  'possible_keys',
  'key',
  'key_len',
  'ref',
  'rows',
  'Extra',
];
const planTable = (rows, columns = PLAN_COLUMNS) =>
  [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map(
      (plan) => `| ${columns.map((column) => String(plan[column] ?? 'NULL')).join(' | ')} |`,
    ),
  ].join('\n');
const analysisSection =
  listAnalysis.length === 0
    ? ''
    : `\n\`ANALYZE\` of the same query (rows actually read: \`r_rows\`):\n\n${planTable(listAnalysis, ['table', 'type', 'key', 'rows', 'r_rows', 'Extra'])}\n`;

const seeded = REPOS.map(({ repo, size }) =>
  seedSeconds[repo] === 0
    ? `${repo} ${size} (already present)`
    : `${repo} ${size} in ${seedSeconds[repo].toFixed(1)} s`,
).join('; ');

console.log(`## MySQL executions query

Machine: ${cpus().length} vCPU (nproc), ${cpuModel}, Node ${process.version}, ${version}; 1-minute load average ${loadAverage} when measuring started (the machine is shared).
Store: \`createMySqlStore\` from \`packages/mysql/dist\` (drizzle-orm + mysql2 pool), server on localhost.
Seeding: ${seeded}, multi-row INSERTs of ${ROWS_PER_INSERT} rows over ${PARALLEL_INSERTS} connections, one record every 30 s, 10 % on another branch, 5 % fail; counters set to the totals.
Measured: ${ITERATIONS} sequential calls per figure after ${WARM_UP} warm-up calls, alternating between the two repositories call by call; milliseconds per call, including the driver and row mapping.

| repository | records | list top 10 p50 | list top 10 p99 | total p50 | total p99 |
|---|---:|---:|---:|---:|---:|
${REPOS.map(({ repo, size }) => `| ${repo} | ${size} | ${ms(results[repo].list.p50)} | ${ms(results[repo].list.p99)} | ${ms(results[repo].total.p50)} | ${ms(results[repo].total.p99)} |`).join('\n')}
| **1M / 1k ratio** | | **${ratio('list', 'p50')}** | ${ratio('list', 'p99')} | **${ratio('total', 'p50')}** | ${ratio('total', 'p99')} |

\`EXPLAIN\` of the list query on the 1M repository (\`${listSql}\`):

${planTable(listPlan)}
${analysisSection}
\`EXPLAIN\` of the baseline query (\`${baselineSql}\`):

${planTable(baselinePlan)}

Commands:

\`\`\`sh
pnpm --filter "@covgate/mysql..." build
COVGATE_MYSQL_URL=mysql://root@127.0.0.1:3306/test node bench/mysql-executions.mjs >> bench/RESULTS.md
\`\`\`
`);
