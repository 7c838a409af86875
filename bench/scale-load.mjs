// Latency under load of a database filled by bench/scale-seed.mjs (issue 45, item 2): the
// built reference server on that database, 50 concurrent clients for 60 s over the routes a
// user's pages and CI call, p50/p99 per route and the server's RSS.
//
//   pnpm run build
//   node bench/scale-seed.mjs [--runs 1000000]
//   node bench/scale-load.mjs [--duration 60] [--clients 50]
//        [--mysql mysql://root@127.0.0.1:3306/covgate_scale_bench | --sqlite DIR/covgate.db]
//
// The server runs as `examples/server/dist/main.js` (as bench/ingest-files.mjs starts it), with
// per-token and per-session rate limits raised out of the way (ENTERPRISE_RATE_LIMIT,
// SESSION_RATE_LIMIT) and its log discarded. `covgate-admin bootstrap scale-000` gives a session
// in the first seeded organisation, through which an API token is made. Each client loops over
// the routes in turn, each starting at another one, on random repositories of `scale-000`
// (`repo-0000` for the series: it holds the most runs). Latency is the client's wall time for
// the whole answer; the load generator shares the machine with the server. Prints Markdown.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { currentUptime, machineSummary } from './support/machine.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    clients: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '5' },
    mysql: { type: 'string' },
    sqlite: { type: 'string', default: '' },
  },
});
const DURATION_MS = Number(values.duration) * 1000;
const WARMUP_MS = Number(values.warmup) * 1000;
const CLIENTS = Number(values.clients);
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
const storeName = values.sqlite ? `SQLite ${values.sqlite}` : `MariaDB ${mysqlUrl}`;

const home = mkdtempSync(join(tmpdir(), 'covgate-scale-'));
const env = {
  PATH: process.env.PATH,
  HOME: home,
  COVGATE_DATA_DIR: join(home, 'data'),
  ENTERPRISE_RATE_LIMIT: '100000000',
  SESSION_RATE_LIMIT: '100000000',
  ...storeEnv,
};

function startServer() {
  const child = spawn(process.execPath, [join(serverDist, 'main.js')], {
    cwd: home,
    env: { ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    let found = false;
    const onData = (chunk) => {
      if (found) return; // keep draining the log so the server never blocks on it
      output += chunk;
      const listening = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (listening) {
        found = true;
        resolve({ child, url: listening[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      if (!found) reject(new Error(`server exited ${code}: ${output}`));
    });
  });
}

/** The server's resident set in MiB, from /proc. */
function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

async function credentials(url) {
  const admin = execFileSync(process.execPath, [join(serverDist, 'admin.js'), 'bootstrap', ORG], {
    cwd: home,
    env,
    encoding: 'utf8',
  });
  const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin)[1];
  const created = await fetch(`${url}/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `scale-${Date.now()}` }),
  });
  if (created.status !== 201) throw new Error(`token: ${created.status} ${await created.text()}`);
  return { session, token: (await created.json()).secret };
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

async function call(url, route) {
  const started = performance.now();
  const response = await fetch(`${url}${route.path()}`, {
    method: route.method ?? 'GET',
    headers: route.headers,
    body: route.body?.(),
  });
  const text = await response.text();
  return { ms: performance.now() - started, status: response.status, text };
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
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      let next = client % list.length;
      while (performance.now() < until) {
        const route = list[next];
        next = (next + 1) % list.length;
        const { ms: took, status, text } = await call(url, route);
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

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

const server = await startServer();
try {
  const keys = await credentials(server.url);
  const runIds = await someRunIds(server.url, keys.token);
  const list = routes(keys, runIds);
  await load(server.url, list, WARMUP_MS, null, new Map());
  const rssStart = rssMiB(server.child.pid);
  const uptimeStart = currentUptime();
  const samples = new Map(list.map((route) => [route.name, []]));
  const rssSeries = [];
  const sampler = setInterval(() => rssSeries.push(rssMiB(server.child.pid)), 10_000);
  const started = new Date();
  const failures = new Map();
  await load(server.url, list, DURATION_MS, samples, failures);
  clearInterval(sampler);
  const rssEnd = rssMiB(server.child.pid);
  const seconds = DURATION_MS / 1000;
  console.log(
    `\n${storeName}; ${CLIENTS} clients for ${seconds} s from ${started.toISOString().slice(11, 19)} UTC after a ${WARMUP_MS / 1000} s warm-up; organisation ${ORG}\n`,
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
  console.log(
    `\nServer RSS: ${rssStart.toFixed(0)} MiB at the start, ${rssEnd.toFixed(0)} MiB at the end (every 10 s: ${rssSeries.map((v) => v.toFixed(0)).join(', ')} MiB).`,
  );
  const unexpected = [...failures].map(([key, count]) => `${count} x ${key}`);
  console.log(`\nOther answers (not in the times above): ${unexpected.join('; ') || 'none'}.`);
  console.log(`\nMachine: ${machineSummary()}.`);
  console.log(`uptime at the start: ${uptimeStart}`);
  console.log(`uptime at the end: ${currentUptime()}`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
  rmSync(home, { recursive: true, force: true });
}
