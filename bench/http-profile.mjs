// A CPU profile of one server of http-servers.mjs under wrk, summarised: self time and
// inclusive time per function and self time per part of the stack, in µs per request.
// The server runs pinned to CPU 0, wrk (`-t1 -c50`) pinned to CPU 1; after a warm-up the
// server's inspector profiles the measured load only (start-up and warm-up left out).
// Usage: node bench/http-profile.mjs <kind> [--list] [--duration 8] [--top 15]
//   --list loads the authenticated `GET /v1/executions` instead of `GET /health`.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { currentUptime, machineSummary } from './support/machine.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    list: { type: 'boolean', default: false },
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    top: { type: 'string', default: '15' },
    interval: { type: 'string', default: '100' },
  },
});
const [kind] = positionals;
if (!kind) {
  console.error('usage: node bench/http-profile.mjs <kind> [--list] [--duration 8] [--top 15]');
  process.exit(2);
}
const requestPath = values.list ? '/v1/executions?org=bench&repo=web&limit=10' : '/health';
const serverScript = fileURLToPath(new URL('./http-servers.mjs', import.meta.url));
const profileDir = mkdtempSync(path.join(os.tmpdir(), 'covgate-profile-'));

const profileFile = path.join(profileDir, 'requests.cpuprofile');
const child = spawn('taskset', ['-c', '0', process.execPath, serverScript, kind], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: {
    ...process.env,
    COVGATE_BENCH_CPU_PROFILE: profileFile,
    COVGATE_BENCH_CPU_PROFILE_INTERVAL: values.interval,
  },
});
let buffer = '';
let server;
for await (const chunk of child.stdout) {
  buffer += chunk;
  const match = /READY (\d+) (\S+)/.exec(buffer);
  if (match) {
    server = { port: Number(match[1]), token: match[2] };
    break;
  }
}
if (!server) throw new Error(`${kind} did not start`);

function wrk(seconds) {
  const args = ['-c', '1', 'wrk', '-t1', '-c50', `-d${seconds}s`];
  if (values.list) args.push('-H', `authorization: Bearer ${server.token}`);
  args.push(`http://127.0.0.1:${server.port}${requestPath}`);
  const out = execFileSync('taskset', args, { encoding: 'utf8' });
  return Number(/(\d+) requests in/.exec(out)[1]);
}

wrk(values.warmup);
child.kill('SIGUSR2');
const requests = wrk(values.duration);
child.kill('SIGINT');
await once(child, 'exit');
const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
rmSync(profileDir, { recursive: true, force: true });

/** Where a frame's code lives, for the per-part totals. */
function partOf({ functionName, url }) {
  if (functionName.startsWith('(')) return functionName;
  if (url.includes('/packages/core/')) return 'covgate core';
  if (url.includes('/packages/node-bridge/')) return 'covgate node-bridge';
  if (url.includes('/packages/hapi/') || url.includes('/packages/express/'))
    return 'covgate adapter';
  if (url.includes('/packages/fetch/')) return 'covgate fetch adapter';
  const pkg = /node_modules\/\.pnpm\/([^/]+?)@/.exec(url);
  if (pkg) return pkg[1].replace('+', '/');
  if (url.startsWith('node:') || url === '') return 'node';
  return 'other';
}

function nameOf({ functionName, url, lineNumber }) {
  const where = url
    ? ` ${url.replace(/^.*\/(node_modules|packages)\//, '').replace(/^file:\/\//, '')}:${lineNumber + 1}`
    : '';
  return `${functionName || '(anonymous)'}${where}`;
}

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const id of node.children ?? []) parentOf.set(id, node.id);
const self = new Map();
const inclusive = new Map();
const parts = new Map();
let total = 0;
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
for (let i = 0; i < profile.samples.length; i++) {
  const us = profile.timeDeltas[i] ?? 0;
  total += us;
  const leaf = byId.get(profile.samples[i]);
  add(self, nameOf(leaf.callFrame), us);
  add(parts, partOf(leaf.callFrame), us);
  const seen = new Set();
  for (let id = leaf.id; id !== undefined; id = parentOf.get(id)) {
    const name = nameOf(byId.get(id).callFrame);
    if (name.startsWith('(root)') || seen.has(name)) continue;
    seen.add(name);
    add(inclusive, name, us);
  }
}

const top = Number(values.top);
const perRequest = (us) => (us / requests).toFixed(2);
const table = (title, map) => {
  console.log(`\n| ${title} | µs per request | share |\n|---|---:|---:|`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`| \`${name}\` | ${perRequest(us)} | ${((100 * us) / total).toFixed(1)} % |`);
  }
};
console.log(`machine: ${machineSummary()}; uptime at the end: ${currentUptime()}`);
console.log(
  `${kind} ${requestPath}: ${requests} requests in ${values.duration} s under wrk -t1 -c50, profile interval ${values.interval} µs; ${perRequest(total)} µs of profiled time per request`,
);
table('part of the stack (self time)', parts);
table('function (self time)', self);
table('function (inclusive time)', inclusive);
