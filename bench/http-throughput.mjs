// Throughput of covgate against bare baselines, all measured in one run with wrk.
// Each server runs alone in its own process pinned to CPU 0 (`taskset -c 0`); wrk runs pinned
// to CPU 1 (`taskset -c 1`), so the load generator does not compete with the server.
// Usage: pnpm bench:http  (builds first)
//    or  node bench/http-throughput.mjs [--duration 6] [--rounds 2] [--connections 50] [--only kind,...]
//    or  node bench/http-throughput.mjs --paired 7 [--duration 3]: each covgate server and its
//        baseline started once and loaded alternately (A B, B A, ...) N times; the median of the
//        N ratios, so that a neighbour's load drifting over minutes moves both sides of a pair.
//    or  node bench/http-throughput.mjs --bounds 5 [--duration 3]: the list and the Hapi plugin
//        as shipped and without the access line and/or the rate limit (rules of the spec, so
//        only as bounds), each group started once and loaded in rotated order N times.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { currentUptime, machineSummary } from './support/machine.mjs';
import { median } from './support/stats.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    paired: { type: 'string' },
    bounds: { type: 'string' },
  },
});
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const serverScript = fileURLToPath(new URL('./http-servers.mjs', import.meta.url));

for (const tool of ['wrk', 'taskset']) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  } catch {
    console.error(
      `${tool} is missing: apt-get install -y ${tool === 'wrk' ? 'wrk' : 'util-linux'}`,
    );
    process.exit(2);
  }
}
const cpus = os.cpus().length;
const serverCpu = '0';
const loadCpu = cpus > 1 ? '1' : '0';

/**
 * Starts `node http-servers.mjs <kind>` on the server CPU; resolves once it listens. `env`
 * adds the `--bounds` knobs.
 */
async function startServer(kind, env = {}) {
  const child = spawn('taskset', ['-c', serverCpu, process.execPath, serverScript, kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  let buffer = '';
  for await (const chunk of child.stdout) {
    buffer += chunk;
    const match = /READY (\d+) (\S+)/.exec(buffer);
    if (match) return { child, port: Number(match[1]), token: match[2] };
  }
  throw new Error(`${kind} did not start`);
}

function wrk(url, headers, seconds) {
  const args = ['-c', loadCpu, 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  const out = execFileSync('taskset', args, { encoding: 'utf8' });
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  if (!rps || !requests) throw new Error(`unexpected wrk output:\n${out}`);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const errors = /Socket errors: (.*)/.exec(out);
  if (non2xx || errors) throw new Error(`${url}: ${non2xx?.[0] ?? ''} ${errors?.[0] ?? ''}`);
  return { rps: Number(rps[1]), requests: Number(requests[1]) };
}

/**
 * CPU time the server process has used (user + system), in microseconds: a figure that a
 * busy neighbour on a shared machine disturbs less than throughput. Clock ticks of 10 ms.
 */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after "pid (comm) ".
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** The server's CPU time per request over one measured wrk run (after a warm-up). */
function loadOnce(server, path, withToken, seconds) {
  const headers = withToken ? { authorization: `Bearer ${server.token}` } : {};
  const url = `http://127.0.0.1:${server.port}${path}`;
  const cpuBefore = cpuMicros(server.child.pid);
  const { rps, requests } = wrk(url, headers, seconds);
  return { rps, cpuPerRequest: (cpuMicros(server.child.pid) - cpuBefore) / requests };
}

async function stopServer(server) {
  server.child.kill();
  await once(server.child, 'exit');
}

async function measure(kind, path, withToken) {
  const server = await startServer(kind);
  try {
    loadOnce(server, path, withToken, warmup);
    return loadOnce(server, path, withToken, duration);
  } finally {
    await stopServer(server);
  }
}

const LIST = '/v1/executions?org=bench&repo=web&limit=10';
// The peers a user would build instead (http-servers.mjs): the same access line, request id,
// verified-token lookup, rate-limit headers and page.
const SAME_WORK_FASTIFY = "Fastify 5 doing the list's work";
const SAME_WORK_HAPI = "Hapi 21 doing the plugin's /health work";
// [label, server kind, path, authenticated, baseline label]
const scenarios = [
  ['bare node:http, fixed JSON', 'bare-node', '/health', false, null],
  ['Hono app on @hono/node-server', 'hono', '/health', false, 'bare node:http, fixed JSON'],
  ['Fastify 5 route', 'fastify', '/health', false, 'bare node:http, fixed JSON'],
  [
    'covgate GET /health, Fetch adapter on the Node listener',
    'covgate-fetch',
    '/health',
    false,
    'bare node:http, fixed JSON',
  ],
  [
    "covgate GET /health, Fetch adapter on @hono/node-server's listener",
    'covgate-hono-listener',
    '/health',
    false,
    'bare node:http, fixed JSON',
  ],
  [SAME_WORK_FASTIFY, 'fastify-same-work', LIST, true, 'bare node:http, fixed JSON'],
  [
    'covgate authenticated GET /v1/executions (memory store, warm cache)',
    'covgate-fetch',
    LIST,
    true,
    SAME_WORK_FASTIFY,
  ],
  ['bare Express 5 route', 'bare-express', '/health', false, null],
  ['covgate Express middleware', 'covgate-express', '/health', false, 'bare Express 5 route'],
  ['bare Hapi 21 route', 'bare-hapi', '/health', false, null],
  [SAME_WORK_HAPI, 'hapi-same-work', '/health', false, 'bare Hapi 21 route'],
  ['covgate Hapi plugin', 'covgate-hapi', '/health', false, SAME_WORK_HAPI],
].filter(([, kind]) => !values.only || values.only.split(',').some((k) => kind.startsWith(k)));

// Issue 45's goals, each against its row's baseline.
const GOALS = {
  'covgate GET /health, Fetch adapter on the Node listener': 0.85,
  'covgate authenticated GET /v1/executions (memory store, warm cache)': 1.2,
  'covgate Express middleware': 1.0,
  'covgate Hapi plugin': 1.1,
};

/**
 * Starts each member of a group once (all on the server CPU: the idle ones cost nothing),
 * warms each up, then loads them `passes` times, the order rotated every pass so that a
 * drift of the machine favours no member; stops them all. Per member, its runs in pass order.
 *
 * @param members - `[label, kind, path, authenticated, env]`
 */
async function rotatedRuns(members, passes) {
  const servers = [];
  try {
    for (const [, kind, , , env] of members) servers.push(await startServer(kind, env));
    for (const [i, [, , path, withToken]] of members.entries()) {
      loadOnce(servers[i], path, withToken, warmup);
    }
    const runs = members.map(() => []);
    for (let pass = 0; pass < passes; pass++) {
      for (let step = 0; step < members.length; step++) {
        const i = (step + pass) % members.length;
        const [label, , path, withToken] = members[i];
        const run = loadOnce(servers[i], path, withToken, duration);
        runs[i].push(run);
        process.stderr.write(`pass ${pass + 1}: ${label}: ${run.rps.toFixed(0)} req/s\n`);
      }
    }
    return runs;
  } finally {
    for (const server of servers) await stopServer(server);
  }
}

const range = (xs) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;

const SILENT = { COVGATE_BENCH_LOGGER: 'silent' };
const NO_LIMIT = { COVGATE_BENCH_RATE_LIMIT: 'off' };
// [label, server kind, path, authenticated, knobs]; the first of a group is its baseline.
const BOUND_GROUPS = [
  [
    ['bare node:http, fixed JSON', 'bare-node', '/health', false, {}],
    ['covgate authenticated GET /v1/executions, as shipped', 'covgate-fetch', LIST, true, {}],
    ['the same without the rate limit', 'covgate-fetch', LIST, true, NO_LIMIT],
    ['the same without the access line', 'covgate-fetch', LIST, true, SILENT],
    ['the same without either', 'covgate-fetch', LIST, true, { ...SILENT, ...NO_LIMIT }],
  ],
  [
    ['bare Hapi 21 route', 'bare-hapi', '/health', false, {}],
    ['covgate Hapi plugin GET /health, as shipped', 'covgate-hapi', '/health', false, {}],
    ['the same without the access line', 'covgate-hapi', '/health', false, SILENT],
  ],
];

if (values.bounds !== undefined) {
  const passes = Number(values.bounds);
  const started = Date.now();
  console.log('| server | baseline | median ratio | ratios (min-max) | median req/s |');
  console.log('|---|---|---:|---:|---:|');
  for (const group of BOUND_GROUPS) {
    const rates = (await rotatedRuns(group, passes)).map((runs) => runs.map((run) => run.rps));
    const [baseLabel] = group[0];
    for (const [i, [label]] of group.entries()) {
      const ratios = rates[i].map((rps, pass) => rps / rates[0][pass]);
      console.log(
        i === 0
          ? `| ${label} | | 1.00 | | ${median(rates[i]).toFixed(0)} |`
          : `| ${label} | ${baseLabel} | ${median(ratios).toFixed(2)} | ${range(ratios)} | ${median(rates[i]).toFixed(0)} |`,
      );
    }
  }
  console.log(
    `\nmachine: ${machineSummary()}; wrk -t1 -c${connections} on CPU ${loadCpu}, servers on CPU ${serverCpu}; ${passes} rotated passes of ${duration} s; ${Math.round((Date.now() - started) / 1000)} s in all`,
  );
  console.log(`uptime at the end: ${currentUptime()}`);
  process.exit(0);
}

if (values.paired !== undefined) {
  const pairs = Number(values.paired);
  const started = Date.now();
  const byLabel = new Map(scenarios.map((scenario) => [scenario[0], scenario]));
  const rows = [];
  for (const [label, kind, path, withToken, base] of scenarios) {
    const baseline = base && byLabel.get(base);
    if (!baseline) continue;
    const [, baseKind, basePath, baseWithToken] = baseline;
    // A group of two, rotated: the order is swapped every pair.
    const [references, subjects] = await rotatedRuns(
      [
        [base, baseKind, basePath, baseWithToken, {}],
        [label, kind, path, withToken, {}],
      ],
      pairs,
    );
    rows.push({
      label,
      base,
      ratios: subjects.map((a, pair) => a.rps / references[pair].rps),
      cpuRatios: subjects.map((a, pair) => references[pair].cpuPerRequest / a.cpuPerRequest),
    });
  }
  console.log(`machine: ${machineSummary()}`);
  console.log(
    `load: wrk -t1 -c${connections} on CPU ${loadCpu}, servers on CPU ${serverCpu}; ${pairs} alternated pairs of ${duration} s per row; ${Math.round((Date.now() - started) / 1000)} s in all`,
  );
  console.log(`uptime at the end: ${currentUptime()}\n`);
  console.log('| server | baseline | median ratio | ratios (min-max) | goal | median CPU ratio |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const { label, base, ratios, cpuRatios } of rows) {
    const goal = GOALS[label];
    const ratio = median(ratios);
    const goalText = goal === undefined ? '' : `>= ${goal} ${ratio >= goal ? 'met' : 'missed'}`;
    console.log(
      `| ${label} | ${base} | ${ratio.toFixed(2)} | ${range(ratios)} | ${goalText} | ${median(cpuRatios).toFixed(2)} |`,
    );
  }
  process.exit(0);
}

const started = Date.now();
const totals = new Map();
const cpuCosts = new Map();
for (let round = 0; round < rounds; round++) {
  for (const [label, kind, path, withToken] of scenarios) {
    const { rps, cpuPerRequest } = await measure(kind, path, withToken);
    totals.set(label, [...(totals.get(label) ?? []), rps]);
    cpuCosts.set(label, [...(cpuCosts.get(label) ?? []), cpuPerRequest]);
    process.stderr.write(
      `round ${round + 1}: ${label}: ${rps.toFixed(0)} req/s, ${cpuPerRequest.toFixed(1)} µs CPU/request\n`,
    );
  }
}
const meanOf = (values) => (label) => {
  const xs = values.get(label) ?? [];
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
const mean = meanOf(totals);
const meanCpu = meanOf(cpuCosts);
const wrkVersion = /wrk [^\s]+/.exec(
  (() => {
    try {
      execFileSync('wrk', ['-v'], { encoding: 'utf8', stdio: 'pipe' });
      return '';
    } catch (error) {
      return `${error.stdout ?? ''}`;
    }
  })(),
)?.[0];
console.log(`machine: ${machineSummary()}`);
console.log(
  `load: ${wrkVersion ?? 'wrk'} -t1 -c${connections} on CPU ${loadCpu}, each server alone on CPU ${serverCpu}; ${warmup} s warm-up + ${duration} s measured, ${rounds} rounds (mean); ${Math.round((Date.now() - started) / 1000)} s in all`,
);
console.log(`uptime at the end: ${currentUptime()}\n`);
console.log(
  '| server | req/s | ratio | goal | server CPU µs/request | CPU ratio (baseline CPU / this CPU) |',
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const [label, , , , base] of scenarios) {
  const ratio = base && totals.has(base) ? mean(label) / mean(base) : null;
  const goal = GOALS[label];
  const ratioText = base === null ? '1.00' : ratio === null ? 'n/a' : ratio.toFixed(2);
  const baseText = base === null ? ' (baseline)' : ` x ${base}`;
  const goalText =
    goal === undefined || ratio === null ? '' : `>= ${goal} ${ratio >= goal ? 'met' : 'missed'}`;
  const cpuRatio = base && cpuCosts.has(base) ? (meanCpu(base) / meanCpu(label)).toFixed(2) : '';
  console.log(
    `| ${label} | ${mean(label).toFixed(0)} | ${ratioText}${baseText} | ${goalText} | ${meanCpu(label).toFixed(1)} | ${base === null ? '1.00' : cpuRatio} |`,
  );
}
