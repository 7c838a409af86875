// Machine instructions per request of the servers of http-servers.mjs, counted by
// valgrind's callgrind: a figure a busy neighbour does not move, unlike requests per second.
// Each server runs under callgrind with counting off while it starts and warms up; counting is
// switched on for exactly `--requests` requests (keep-alive, `--connections` at a time) and
// the count is divided by them. The main thread (the request path) is counted apart from
// V8's and libuv's helper threads (concurrent compilation and GC), which are shown in all.
// Usage: node bench/http-instructions.mjs [--requests 5000] [--warmup 10000] [--connections 8]
//            [--only kind,...]
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { currentUptime, machineSummary } from './support/machine.mjs';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '8' },
    only: { type: 'string' },
  },
});
const requests = Number(values.requests);
const warmup = Number(values.warmup);
const connections = Number(values.connections);
const serverScript = fileURLToPath(new URL('./http-servers.mjs', import.meta.url));
const LIST = '/v1/executions?org=bench&repo=web&limit=10';

// [label, server kind, path, authenticated]
const SERVERS = [
  ['bare node:http, fixed JSON', 'bare-node', '/health', false],
  ['covgate GET /health, Node listener', 'covgate-fetch', '/health', false],
  ["Fastify 5 doing the list's work", 'fastify-same-work', LIST, true],
  ['covgate authenticated GET /v1/executions', 'covgate-fetch', LIST, true],
  ['bare Express 5 route', 'bare-express', '/health', false],
  ['covgate Express middleware', 'covgate-express', '/health', false],
  ["Hapi 21 doing the plugin's /health work", 'hapi-same-work', '/health', false],
  ['covgate Hapi plugin', 'covgate-hapi', '/health', false],
].filter(([, kind]) => !values.only || values.only.split(',').includes(kind));

async function startServer(kind, outFile) {
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${outFile}`,
      process.execPath,
      serverScript,
      kind,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let buffer = '';
  for await (const chunk of child.stdout) {
    buffer += chunk;
    const match = /READY (\d+) (\S+)/.exec(buffer);
    if (match) return { child, port: Number(match[1]), token: match[2] };
  }
  throw new Error(`${kind} did not start under valgrind:\n${stderr}`);
}

/** Sends `count` GET requests, `connections` at a time over kept-alive sockets. */
async function load(server, requestPath, withToken, count) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const headers = withToken ? { authorization: `Bearer ${server.token}` } : {};
  let next = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: server.port, path: requestPath, headers, agent },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  const worker = async () => {
    while (next < count) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
}

function callgrindControl(pid, ...args) {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
}

/** The `totals:` instruction count of each thread's callgrind dump, the main thread's first. */
function instructionsByThread(outFile) {
  const dir = path.dirname(outFile);
  const prefix = `${path.basename(outFile)}.1-`;
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .sort()
    .map((name) => {
      const file = path.join(dir, name);
      const match = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'));
      rmSync(file);
      return match ? Number(match[1]) : 0;
    });
}

async function count([label, kind, requestPath, withToken]) {
  const outFile = path.join(os.tmpdir(), `covgate-callgrind-${process.pid}-${kind}`);
  const server = await startServer(kind, outFile);
  try {
    await load(server, requestPath, withToken, warmup);
    callgrindControl(server.child.pid, '--instr=on');
    await load(server, requestPath, withToken, requests);
    callgrindControl(server.child.pid, '--instr=off');
    callgrindControl(server.child.pid, '--dump');
  } finally {
    server.child.kill('SIGINT');
    await once(server.child, 'exit');
  }
  // The dump is `<file>.1-<thread>`; the files written at exit hold nothing counted.
  const [main = 0, ...helpers] = instructionsByThread(outFile);
  for (const name of readdirSync(path.dirname(outFile))) {
    if (name.startsWith(path.basename(outFile))) rmSync(path.join(path.dirname(outFile), name));
  }
  const all = helpers.reduce((sum, n) => sum + n, main);
  return { label, main: main / requests, all: all / requests };
}

const started = Date.now();
const rows = [];
for (const server of SERVERS) {
  const row = await count(server);
  rows.push(row);
  process.stderr.write(
    `${row.label}: ${Math.round(row.main)} on the main thread, ${Math.round(row.all)} in all\n`,
  );
}
console.log(`machine: ${machineSummary()}`);
console.log(
  `valgrind --tool=callgrind, ${warmup} warm-up then ${requests} counted requests, ${connections} kept-alive connections; ${Math.round((Date.now() - started) / 1000)} s in all; uptime at the end: ${currentUptime()}\n`,
);
const figure = (n) => Math.round(n).toLocaleString('en-US');
console.log('| server | instructions per request, main thread | all threads |');
console.log('|---|---:|---:|');
for (const { label, main, all } of rows) {
  console.log(`| ${label} | ${figure(main)} | ${figure(all)} |`);
}
