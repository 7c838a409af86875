// Latency under load of a database filled by bench/scale-seed.mjs (issue 45, item 2): the
// built reference server on that database, 50 concurrent clients for 60 s over the routes a
// user's pages and CI call, p50/p99 per route and the server's RSS.
//
//   pnpm run build
//   node bench/scale-seed.mjs [--runs 1000000]
//   node bench/scale-load.mjs [--duration 60] [--clients 50]
//        [--mysql mysql://root@127.0.0.1:3306/covgate_scale_bench | --sqlite DIR/covgate.db]
//        [--no-pin] [--cpu-prof DIR] [--count-queries] [--pool N] [--rate N]
//
// The server runs as `examples/server/dist/main.js` (bench/support/built-server.mjs), with
// per-token and per-session rate limits raised out of the way (ENTERPRISE_RATE_LIMIT,
// SESSION_RATE_LIMIT) and its log discarded. `covgate-admin bootstrap scale-000` gives a session
// in the first seeded organisation, through which an API token is made. Each client loops over
// the routes in turn, each starting at another one, on random repositories of `scale-000`
// (`repo-0000` for the series: it holds the most runs). Latency is the client's wall time for
// the whole answer. On two or more CPUs the server is pinned to CPU 0 and this load generator
// to CPU 1 (`taskset`; `--no-pin` leaves both to the scheduler); MariaDB is not pinned.
// `--cpu-prof DIR` writes the server's V8 CPU profile there when it exits. `--count-queries`
// (MySQL) preloads bench/support/count-queries.mjs: statements per request for each route with
// one client, then the statements, their mean time and the pool waits under the load. Prints
// Markdown. `--pool N` sets the server's DATABASE_POOL_SIZE (default: the server's, 10).
// Without `--rate` each client sends its next request as soon as the last one is answered (a
// closed loop: the latencies then measure the queue at the server's most requests per second,
// by Little's law about clients / throughput). `--rate N` paces the clients to N requests per
// second in all (each client one every clients / N s), and a request's time counts from when
// it was due, so a late start counts against the server (no coordinated omission).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { benchCredentials, startBenchServer } from './support/built-server.mjs';
import { currentUptime, machineSummary } from './support/machine.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    clients: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '5' },
    mysql: { type: 'string' },
    sqlite: { type: 'string', default: '' },
    'cpu-prof': { type: 'string', default: '' },
    'count-queries': { type: 'boolean', default: false },
    pin: { type: 'boolean', default: true },
    pool: { type: 'string', default: '' },
    rate: { type: 'string', default: '' },
  },
  allowNegative: true,
});
const DURATION_MS = Number(values.duration) * 1000;
const WARMUP_MS = Number(values.warmup) * 1000;
const CLIENTS = Number(values.clients);
const RATE = values.rate ? Number(values.rate) : 0;
if (!(RATE >= 0)) throw new Error('--rate must be a number of requests per second');
const ORG = 'scale-000';
const serverDist = new URL('../examples/server/dist/', import.meta.url).pathname;

const mysqlUrl =
  values.mysql ??
  (() => {
    const url = new URL(process.env.COVGATE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/');
    url.pathname = '/covgate_scale_bench';
    return url.toString();
  })();
if (values.sqlite && basename(values.sqlite) !== 'covgate.db') {
  throw new Error('--sqlite must name a file covgate.db (the server opens DIR/covgate.db)');
}
const storeEnv = values.sqlite
  ? { COVGATE_DATA_DIR: dirname(values.sqlite) }
  : { DATABASE_URL: mysqlUrl };
const storeName = values.sqlite
  ? `SQLite ${values.sqlite}`
  : `MariaDB ${mysqlUrl}, pool of ${values.pool || 'the default'} connections`;

const home = mkdtempSync(join(tmpdir(), 'covgate-scale-'));
const env = {
  COVGATE_DATA_DIR: join(home, 'data'),
  ENTERPRISE_RATE_LIMIT: '100000000',
  SESSION_RATE_LIMIT: '100000000',
  ...storeEnv,
  ...(values.pool ? { DATABASE_POOL_SIZE: values.pool } : {}),
};

/** The server's resident set in MiB, from /proc; NaN once it has ended. */
function rssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];
const repoOf = () => `repo-${String(Math.floor(Math.random() * 100)).padStart(4, '0')}`;

let ingests = 0;
function ingestBody() {
  ingests += 1;
  const files = Array.from({ length: 40 }, (_, file) => ({
    path: `src/module-${String(file % 8).padStart(2, '0')}/file-${String(file).padStart(3, '0')}.ts`,
    covered: (file * 13 + ingests) % 50,
    coverable: 50,
  }));
  return JSON.stringify({
    repo: repoOf(),
    branch: ingests % 4 === 0 ? 'feature/load' : 'main',
    coverage: 60 + (ingests % 35),
    commit: (0xf000000 + ingests).toString(16).padStart(40, '0'),
    files,
  });
}

/** The routes measured: how each request is made and the status it must answer. */
function routes({ session, token }, runIds) {
  const api = { authorization: `Bearer ${token}` };
  const user = { authorization: `Bearer ${session}` };
  return [
    {
      name: 'list',
      status: 200,
      path: () => `/v1/executions?org=${ORG}&repo=${repoOf()}`,
      headers: api,
    },
    {
      name: 'list filtered (branch, outcome)',
      status: 200,
      path: () =>
        `/v1/executions?org=${ORG}&repo=${repoOf()}&branch=main&outcome=${pick(['pass', 'fail'])}`,
      headers: api,
    },
    {
      name: 'series of 1 000 points',
      status: 200,
      path: () => `/v1/executions/series?org=${ORG}&repo=repo-0000&limit=1000`,
      headers: api,
    },
    {
      name: 'headline',
      status: 200,
      path: () => `/v1/repos/headline?org=${ORG}&repo=${repoOf()}`,
      headers: user,
    },
    { name: 'run detail', status: 200, path: () => `/v1/executions/${pick(runIds)}`, headers: api },
    { name: 'badge', status: 200, path: () => `/v1/badge/${ORG}/${repoOf()}`, headers: {} },
    {
      name: 'ingest',
      status: 201,
      method: 'POST',
      path: () => '/v1/executions',
      headers: { ...api, 'content-type': 'application/json' },
      body: ingestBody,
    },
    { name: 'members', status: 200, path: () => '/v1/members', headers: user },
  ];
}

/**
 * One request's time (from `started`, when it was due), status and body; a connection that
 * fails has the status `network`.
 */
async function call(url, route, started = performance.now()) {
  try {
    const response = await fetch(`${url}${route.path()}`, {
      method: route.method ?? 'GET',
      headers: route.headers,
      body: route.body?.(),
    });
    const text = await response.text();
    return { ms: performance.now() - started, status: response.status, text };
  } catch (error) {
    const code = error.cause?.code ?? error.cause?.message ?? error.message;
    return { ms: performance.now() - started, status: 'network', text: code };
  }
}

/** Ids of runs of `scale-000` with a per-file list and without, for the run detail. */
async function someRunIds(url, token) {
  const ids = [];
  for (let repo = 0; repo < 20; repo += 1) {
    const response = await fetch(
      `${url}/v1/executions?org=${ORG}&repo=repo-${String(repo).padStart(4, '0')}&limit=20`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const page = await response.json();
    ids.push(...page.executions.map((run) => run.id));
  }
  if (ids.length === 0) throw new Error(`no runs in ${ORG}: run bench/scale-seed.mjs first`);
  return ids;
}

/**
 * `CLIENTS` loops over `list` for `ms`; each answer's time goes to `samples` (by route) when
 * its status is the expected one, else it is counted in `failures` (by route and status).
 */
async function load(url, list, ms, samples, failures) {
  const until = performance.now() + ms;
  const interval = RATE > 0 ? (CLIENTS / RATE) * 1000 : 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      let next = client % list.length;
      let due = performance.now() + (interval * client) / CLIENTS;
      while (due < until && serverExit === null) {
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const route = list[next];
        next = (next + 1) % list.length;
        const { ms: took, status, text } = await call(url, route, interval > 0 ? due : undefined);
        due = interval > 0 ? due + interval : performance.now();
        if (status === route.status) {
          samples?.get(route.name).push(took);
        } else {
          const key = `${route.name}: ${status} ${text.slice(0, 120)}`;
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
      }
    }),
  );
}

/** The count-queries probe's totals: statements and their time, pool waits and theirs. */
function queryCount() {
  return new Promise((resolve) => {
    server.child.once('message', resolve);
    server.child.send('query-count');
  });
}

const difference = (after, before) =>
  Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]]));

/** One client, `times` requests per route: statements sent per request and their time. */
async function statementsPerRequest(list, times) {
  console.log('\nStatements per request, one client, %d requests per route:\n', times);
  console.log('| route | statements | statement time | pool wait |');
  console.log('|---|---:|---:|---:|');
  for (const route of list) {
    const before = await queryCount();
    for (let index = 0; index < times; index += 1) await call(server.url, route);
    const { statements, statementMs, waitMs } = difference(await queryCount(), before);
    const each = (value, digits) => (value / times).toFixed(digits);
    console.log(
      `| ${route.name} | ${each(statements, 1)} | ${each(statementMs, 1)} ms | ${each(waitMs, 2)} ms |`,
    );
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

// The server on CPU 0 and this load generator on CPU 1, as http-throughput.mjs pins them;
// MariaDB stays on both.
const pinned = values.pin && availableParallelism() > 1;
if (pinned) execFileSync('taskset', ['-pc', '1', String(process.pid)], { stdio: 'ignore' });
const nodeArgs = [
  ...(values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(values['cpu-prof'])] : []),
  ...(values['count-queries']
    ? ['--import', new URL('./support/count-queries.mjs', import.meta.url).href]
    : []),
];
/** The server's last log lines (a crash's reason) and how it ended, if it did. */
const serverTail = [];
let serverExit = null;
const watchServer = (child) => {
  const keep = (chunk) => {
    serverTail.push(...String(chunk).trimEnd().split('\n'));
    serverTail.splice(0, Math.max(0, serverTail.length - 20));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('exit', (code, signal) => {
    serverExit = { code, signal };
  });
};
const server = await startBenchServer(serverDist, env, home, watchServer, {
  ...(pinned ? { cpu: '0' } : {}),
  nodeArgs,
  ipc: values['count-queries'],
});
try {
  const keys = await benchCredentials(serverDist, server.url, env, home, { org: ORG });
  const runIds = await someRunIds(server.url, keys.token);
  const list = routes(keys, runIds);
  await load(server.url, list, WARMUP_MS, null, new Map());
  if (values['count-queries']) await statementsPerRequest(list, 20);
  const countStart = values['count-queries'] ? await queryCount() : null;
  const rssStart = rssMiB(server.child.pid);
  const uptimeStart = currentUptime();
  const samples = new Map(list.map((route) => [route.name, []]));
  const rssSeries = [];
  const sampler = setInterval(() => rssSeries.push(rssMiB(server.child.pid)), 10_000);
  const started = new Date();
  const failures = new Map();
  await load(server.url, list, DURATION_MS, samples, failures);
  clearInterval(sampler);
  const counted =
    countStart === null || serverExit !== null ? null : difference(await queryCount(), countStart);
  const rssEnd = rssMiB(server.child.pid);
  const seconds = DURATION_MS / 1000;
  const placement = pinned
    ? 'server pinned to CPU 0, load generator to CPU 1 (taskset)'
    : 'server and load generator unpinned';
  const pace = RATE > 0 ? `paced to ${RATE} requests/s in all` : 'each sending on an answer';
  console.log(
    `\n${storeName}; ${placement}; ${CLIENTS} clients (${pace}) for ${seconds} s from ${started.toISOString().slice(11, 19)} UTC after a ${WARMUP_MS / 1000} s warm-up; organisation ${ORG}\n`,
  );
  console.log('| route | requests | per s | p50 | p99 | max |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, times] of samples) {
    times.sort((a, b) => a - b);
    const ms = (value) => `${value.toFixed(1)} ms`;
    console.log(
      `| ${name} | ${times.length} | ${(times.length / seconds).toFixed(0)} | ${ms(quantile(times, 0.5))} | ${ms(quantile(times, 0.99))} | ${ms(times.at(-1))} |`,
    );
  }
  const answered = [...samples.values()].reduce((sum, times) => sum + times.length, 0);
  console.log(`\nAnswered as expected: ${(answered / seconds).toFixed(0)} requests/s in all.`);
  console.log(
    `\nServer RSS: ${rssStart.toFixed(0)} MiB at the start, ${rssEnd.toFixed(0)} MiB at the end (every 10 s: ${rssSeries.map((v) => v.toFixed(0)).join(', ')} MiB).`,
  );
  if (counted !== null) {
    const requests = [...samples.values()].reduce((sum, times) => sum + times.length, 0);
    console.log(
      `\nStore under this load: ${(counted.statements / requests).toFixed(1)} statements per answered request, ${(counted.statementMs / counted.statements).toFixed(1)} ms each on average (pool wait included), ${counted.waits} waits for a pooled connection averaging ${(counted.waitMs / counted.waits).toFixed(1)} ms.`,
    );
  }
  const unexpected = [...failures].map(([key, count]) => `${count} x ${key}`);
  console.log(`\nOther answers (not in the times above): ${unexpected.join('; ') || 'none'}.`);
  if (serverExit !== null) {
    console.log(
      `\nThe server ended during the run (code ${serverExit.code}, signal ${serverExit.signal}); its last lines:\n\n${serverTail.map((line) => `    ${line}`).join('\n')}`,
    );
  }
  console.log(`\nMachine: ${machineSummary()}.`);
  console.log(`uptime at the start: ${uptimeStart}`);
  console.log(`uptime at the end: ${currentUptime()}`);
} finally {
  if (serverExit === null) {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
  rmSync(home, { recursive: true, force: true });
}
