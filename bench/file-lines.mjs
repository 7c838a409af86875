// A file's lines on the run page (issue 37, deliverable 6): the server time of
// `GET /v1/executions/{id}/files/{path}` for a 5 000-line file in a large run, and of random
// small files of it, through the built reference server, on the embedded SQLite store and on
// MariaDB. The goal: at most 50 ms of server time.
//
//   pnpm run build
//   node bench/file-lines.mjs [--files 20000] [--big-lines 5000] [--reads 200] [--mysql mysql://root@127.0.0.1:3306/bench_file_lines]
//
// One run of `--files` files of 20 to 60 coverable lines each (ranges of 1-8 lines, covered in
// runs, as bench/ingest-lines.mjs makes them) plus `src/big/generated.ts` of `--big-lines`
// lines: every line but blank ones (1 in 7) coverable, covered in runs of random length, its
// every 3rd block of 40 lines changed by the patch. The reads alternate the big file and a
// random small one, one at a time with the session after ten warm-ups. "Server time" is the
// `durationMs` of the server's access-log line of each read (from the request's arrival to
// its answer, as the API measures it); "client" is the wall time on loopback. Prints Markdown
// with the machine (`uptime`, CPUs, Node) at the end.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { benchCredentials, startBenchServer } from './support/built-server.mjs';

const fromPackage = (name) =>
  createRequire(new URL(`../packages/${name}/package.json`, import.meta.url));
const mysql = fromPackage('mysql')('mysql2/promise');
const { encodeLineData, encodeRanges } = await import(
  new URL('../packages/core/dist/line-data.js', import.meta.url).href
);

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '20000' },
    'big-lines': { type: 'string', default: '5000' },
    reads: { type: 'string', default: '200' },
    mysql: { type: 'string', default: process.env.COVGATE_MYSQL_URL ?? '' },
  },
});
const FILES = Number(values.files);
const BIG_LINES = Number(values['big-lines']);
const READS = Number(values.reads);
const BIG_PATH = 'src/big/generated.ts';
const serverDist = new URL('../examples/server/dist/', import.meta.url).pathname;

/** mulberry32: a small deterministic generator, so every store gets the same run. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Coverable lines in ranges of 1-8 with gaps, covered in runs of a random walk. */
function smallFile(next, path) {
  const target = 20 + Math.floor(next() * 41);
  const coverable = [];
  let line = 0;
  while (coverable.length < target) {
    line += 1 + Math.floor(next() * 6);
    const length = 1 + Math.floor(next() * 8);
    for (let k = 0; k < length && coverable.length < target; k += 1) coverable.push(line++);
  }
  return entry(next, path, coverable, null);
}

function entry(next, path, coverable, patch) {
  const covered = [];
  let hit = true;
  for (const line of coverable) {
    if (next() > (hit ? 0.9 : 0.4)) hit = !hit;
    if (hit) covered.push(line);
  }
  const patchSet = patch === null ? null : new Set(patch);
  return {
    path,
    covered: covered.length,
    coverable: coverable.length,
    lines: encodeLineData({ coverable, covered }),
    ...(patch === null
      ? {}
      : {
          patch_lines: encodeRanges(patch),
          patch_covered: covered.filter((n) => patchSet.has(n)).length,
          patch_coverable: coverable.filter((n) => patchSet.has(n)).length,
        }),
  };
}

function runBody() {
  const next = random(7);
  const files = [];
  for (let index = 0; index < FILES; index += 1) {
    const path = `packages/pkg-${index % 40}/src/module-${String(index % 997).padStart(4, '0')}/file-${index}.ts`;
    files.push(smallFile(next, path));
  }
  const big = [];
  const patch = [];
  for (let line = 1; line <= BIG_LINES; line += 1) {
    if (line % 7 !== 0) big.push(line);
    if (Math.floor((line - 1) / 40) % 3 === 0) patch.push(line);
  }
  const bigEntry = entry(next, BIG_PATH, big, patch);
  files.push(bigEntry);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const json = JSON.stringify({
    repo: 'bench',
    branch: 'feature',
    coverage: 70,
    commit: 'b'.repeat(40),
    base_commit: 'a'.repeat(40),
    pull_request: 1,
    patch: { covered: bigEntry.patch_covered, coverable: bigEntry.patch_coverable },
    files,
  });
  return { gzip: gzipSync(json), paths: files.map((file) => file.path), bigEntry };
}

/** The built server, with each request's `durationMs` from its access log by request id. */
async function startServer(env, cwd) {
  const durations = new Map();
  const server = await startBenchServer(serverDist, env, cwd, (child) => {
    let pending = '';
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('"durationMs"')) continue;
        try {
          // `request {...}` in development, a JSON line in production.
          const record = JSON.parse(line.slice(line.indexOf('{')));
          durations.set(record.requestId, record.durationMs);
        } catch {}
      }
    });
  });
  return { ...server, durations };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(name, env, body) {
  const dir = mkdtempSync(join(tmpdir(), 'covgate-file-lines-bench-'));
  const server = await startServer(env(dir), dir);
  try {
    const { token, session } = await benchCredentials(serverDist, server.url, env(dir), dir);
    const ingested = await fetch(`${server.url}/v1/executions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: body.gzip,
    });
    const answer = await ingested.json();
    if (ingested.status !== 201) throw new Error(`${ingested.status} ${JSON.stringify(answer)}`);
    const next = random(99);
    const samples = { big: { server: [], client: [] }, small: { server: [], client: [] } };
    for (let read = -10; read < READS; read += 1) {
      const big = read % 2 === 0;
      const path = big ? BIG_PATH : body.paths[Math.floor(next() * body.paths.length)];
      const started = performance.now();
      const response = await fetch(
        `${server.url}/v1/executions/${answer.id}/files/${encodeURIComponent(path)}`,
        { headers: { authorization: `Bearer ${session}` } },
      );
      const lines = await response.json();
      const client = performance.now() - started;
      if (response.status !== 200) throw new Error(`${response.status} ${JSON.stringify(lines)}`);
      if (big && lines.coverable !== body.bigEntry.coverable) throw new Error('wrong big file');
      if (read < 0) continue;
      samples[big ? 'big' : 'small'].client.push(client);
      // Its access line carries the server time, read once the lines are flushed.
      samples[big ? 'big' : 'small'].server.push(response.headers.get('x-request-id'));
    }
    // Access lines are flushed in batches: give the last ones time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const row = (kind) => {
      const serverTimes = samples[kind].server.map((id) => server.durations.get(id));
      if (serverTimes.some((ms) => ms === undefined)) throw new Error('an access line is missing');
      serverTimes.sort((a, b) => a - b);
      const client = [...samples[kind].client].sort((a, b) => a - b);
      return {
        name,
        kind,
        n: serverTimes.length,
        p50: quantile(serverTimes, 0.5),
        p90: quantile(serverTimes, 0.9),
        p99: quantile(serverTimes, 0.99),
        max: serverTimes.at(-1),
        clientP50: quantile(client, 0.5),
        clientP90: quantile(client, 0.9),
      };
    };
    return [row('big'), row('small')];
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

const body = runBody();
const results = [];
results.push(
  ...(await measure('SQLite (embedded)', (dir) => ({ COVGATE_DATA_DIR: join(dir, 'data') }), body)),
);
if (values.mysql) {
  const admin = await mysql.createConnection(values.mysql.replace(/\/[^/]*$/, '/'));
  const database = new URL(values.mysql).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(`CREATE DATABASE \`${database}\``);
  await admin.end();
  results.push(...(await measure('MariaDB', () => ({ DATABASE_URL: values.mysql }), body)));
}

console.log(
  `\nOne run of ${FILES + 1} files (${(body.gzip.byteLength / 1024).toFixed(0)} KiB gzip on the wire); ${BIG_PATH}: ${BIG_LINES} lines, ${body.bigEntry.coverable} coverable, ${body.bigEntry.patch_coverable} of them changed\n`,
);
console.log('| store | file | reads | server p50 | p90 | p99 | max | client p50 | client p90 |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.kind === 'big' ? `${BIG_LINES} lines` : '20-60 lines'} | ${r.n} | ${r.p50.toFixed(1)} ms | ${r.p90.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.max.toFixed(1)} ms | ${r.clientP50.toFixed(1)} ms | ${r.clientP90.toFixed(1)} ms |`,
  );
}
console.log(
  `\nNode ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model}); uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
);
