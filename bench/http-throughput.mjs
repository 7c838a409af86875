// Throughput of covgate routes against bare baselines, measured in one run with autocannon.
// Usage: pnpm bench:http  (builds first)   or   node bench/http-throughput.mjs [--duration 10] [--rounds 2]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const serverScript = fileURLToPath(new URL('./http-servers.mjs', import.meta.url));

async function startServer(kind) {
  const child = spawn(process.execPath, [serverScript, kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  for await (const chunk of child.stdout) {
    buffer += chunk;
    const match = /READY (\d+) (\S+)/.exec(buffer);
    if (match) return { child, port: Number(match[1]), token: match[2] };
  }
  throw new Error(`${kind} did not start`);
}

async function measure(kind, path, withToken) {
  const { child, port, token } = await startServer(kind);
  try {
    const headers = withToken ? { authorization: `Bearer ${token}` } : {};
    const url = `http://127.0.0.1:${port}${path}`;
    await autocannon({ url, headers, connections, duration: 2 }); // warm-up
    const result = await autocannon({ url, headers, connections, duration });
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`${kind} ${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    }
    return result.requests.average;
  } finally {
    child.kill();
    await once(child, 'exit');
  }
}

const scenarios = [
  ['bare node:http, fixed JSON', 'bare-node', '/health', false],
  ['covgate Fetch adapter on node:http, GET /health', 'covgate-fetch', '/health', false],
  [
    'covgate Fetch adapter, GET /v1/executions (auth, warm cache)',
    'covgate-fetch',
    '/v1/executions?org=bench&repo=web&limit=10',
    true,
  ],
  ['bare Express route, fixed JSON', 'bare-express', '/health', false],
  ['covgate Express middleware, GET /health', 'covgate-express', '/health', false],
  ['bare Hapi route, fixed JSON', 'bare-hapi', '/health', false],
  ['covgate Hapi plugin, GET /health', 'covgate-hapi', '/health', false],
].filter(([, kind]) => !values.only || values.only.split(',').some((k) => kind.startsWith(k)));

const totals = new Map();
for (let round = 0; round < rounds; round++) {
  for (const [label, kind, path, withToken] of scenarios) {
    const rps = await measure(kind, path, withToken);
    totals.set(label, [...(totals.get(label) ?? []), rps]);
    process.stderr.write(`round ${round + 1}: ${label}: ${rps.toFixed(0)} req/s\n`);
  }
}
const mean = (label) => {
  const xs = totals.get(label) ?? [];
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `machine: ${os.cpus().length} x ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
);
console.log(
  `load: autocannon, ${connections} connections, ${duration} s per run, ${rounds} rounds (mean)\n`,
);
console.log('| scenario | req/s | ratio to its baseline |');
console.log('|---|---:|---:|');
const baselineOf = (label) =>
  label.includes('Express')
    ? 'bare Express route, fixed JSON'
    : label.includes('Hapi')
      ? 'bare Hapi route, fixed JSON'
      : 'bare node:http, fixed JSON';
for (const [label] of scenarios) {
  const base = baselineOf(label);
  const ratio = totals.has(base) ? (mean(label) / mean(base)).toFixed(2) : 'n/a';
  console.log(
    `| ${label} | ${mean(label).toFixed(0)} | ${label === base ? '1.00 (baseline)' : ratio} |`,
  );
}
