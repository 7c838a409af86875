// Ingest of a run with line data (issue 37, deliverable 2): p50/p90 latency of
// `POST /v1/executions` with a 50 000-file `files` list whose every entry carries `lines`
// (2 million coverable lines in all) and every 100th `patch_lines`, through the built reference
// server, on the embedded SQLite store and on MariaDB; the stored line data against the gzip
// of the same line data's JSON; and `GET /v1/executions/{id}/files/{path}` of random files.
//
//   pnpm run build
//   node bench/ingest-lines.mjs [--no-lines] [--runs 20] [--files 50000] [--lines 40] [--reads 100] [--mysql mysql://root@127.0.0.1:3306/bench_lines]
//   node bench/ingest-lines.mjs --parts 8 --files 20000 --runs 10 [--mysql ...]
//
// With `--parts N`, each run is one commit sent as N parts (`part`, `expect_parts`), each
// listing every file with the same coverable lines and its own covered ones, one after the
// other: the table gives the latency of the last part (which merges all N) and of any part.
//
// Each file has about `--lines` coverable lines (20 to 60) in ranges of 1 to 8 lines with
// gaps of 1 to 6, each line covered with probability 0.8 in runs (a random walk), as a real
// report's lines fall; paths like `packages/pkg-17/src/module-0421/file-03-1234.ts`. Each
// run is sent as the CLI sends it: gzip JSON with an Idempotency-Key, sorted by path. Latency
// is the client's wall time for the whole request, one at a time after two warm-ups. Stored
// line data: LENGTH(data) of the run's `execution_lines` row; its gzip size: gzip level 6 of
// the JSON `[{path, lines, patch_lines}, ...]` of the same files. Prints Markdown with the
// machine (`uptime`, CPUs, Node) at the end.
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
const { createClient } = fromPackage('sqlite')('@libsql/client');
const mysql = fromPackage('mysql')('mysql2/promise');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    files: { type: 'string', default: '50000' },
    lines: { type: 'string', default: '40' },
    reads: { type: 'string', default: '100' },
    // Each run one commit sent as this many parts (0: a plain run).
    parts: { type: 'string', default: '0' },
    // The same runs without their line data: what line data adds to an ingest.
    'no-lines': { type: 'boolean', default: false },
    mysql: { type: 'string', default: process.env.COVGATE_MYSQL_URL ?? '' },
  },
});
const RUNS = Number(values.runs);
const FILES = Number(values.files);
const LINES = Number(values.lines);
const READS = values['no-lines'] ? 0 : Number(values.reads);
const PARTS = Number(values.parts);
if (PARTS > 0 && values['no-lines']) throw new Error('--parts needs line data (no --no-lines)');
const serverDist = new URL('../examples/server/dist/', import.meta.url).pathname;

/** mulberry32: a small deterministic generator, so every store gets the same runs. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * One file's lines as the CLI encodes them: `gap, length` ranges from `next` and covered runs
 * from `hits` (the same generator, but for the parts of one commit, which share their lines).
 */
function fileLines(next, hits = next) {
  const target = Math.max(1, Math.round(LINES * (0.5 + next())));
  const coverable = [];
  let count = 0;
  let end = 0;
  while (count < target) {
    const gap = (coverable.length === 0 ? 1 : 2) + Math.floor(next() * 5);
    const length = Math.min(target - count, 1 + Math.floor(next() * 8));
    coverable.push(gap, length);
    count += length;
    end += gap + length - 1;
  }
  const runs = [];
  let hit = true;
  let run = 0;
  for (let line = 0; line < count; line += 1) {
    const isHit = hits() < (hit ? 0.9 : 0.4);
    if (isHit !== hit) {
      runs.push(run);
      hit = isHit;
      run = 0;
    }
    run += 1;
  }
  runs.push(run);
  const covered = runs.reduce((sum, value, index) => (index % 2 === 0 ? sum + value : sum), 0);
  return { lines: { coverable, covered: runs }, counts: { covered, coverable: count }, end };
}

function fileList(seed, part) {
  const next = random(seed * 7919 + 1);
  const hits = part === undefined ? next : random(seed * 7919 + 1000 * (part + 1));
  const files = [];
  for (let i = 0; i < FILES; i += 1) {
    const { lines, counts, end } = fileLines(next, hits);
    const file = {
      path: `packages/pkg-${String(i % 40).padStart(2, '0')}/src/module-${String(Math.floor(i / 40) % 1000).padStart(4, '0')}/file-${String(i % 97).padStart(2, '0')}-${i}.ts`,
      ...counts,
      lines,
    };
    if (i % 100 === 0) file.patch_lines = [1, Math.min(end, 12)];
    files.push(file);
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The built server, its failures shown (and all its log with BENCH_SERVER_LOG). */
function startServer(env, cwd) {
  return startBenchServer(serverDist, env, cwd, (child) => {
    if (process.env.BENCH_SERVER_LOG) {
      const show = (chunk) => process.stderr.write(String(chunk).slice(0, 2000));
      child.stdout.on('data', show);
      child.stderr.on('data', show);
    }
    // Failures the server logs, for a 500 (audit lines and request logs are left out).
    child.stdout.on('data', (chunk) => {
      for (const line of String(chunk).split('\n'))
        if (/"level":50|internal/.test(line)) console.error(line.slice(0, 800));
    });
    child.stderr.on('data', (chunk) => {
      for (const line of String(chunk).split('\n')) {
        if (/error|fail/i.test(line) && !line.startsWith('[audit]')) console.error(line);
      }
    });
  });
}

// Team plan: 600 ingests a minute, for the parts of --parts. The reads go with the session
// (300 a minute), the ingests with the token (60 a minute).
const credentials = (url, env, cwd) =>
  benchCredentials(serverDist, url, env, cwd, { plan: 'team' });

/** The runs' bodies, made once: the same for every store, and not part of the latency. */
const bodies = new Map();
function bodyOf(run, part) {
  const key = part === undefined ? run : `${run}/${part}`;
  if (!bodies.has(key)) {
    const files = fileList(run, part);
    const sent = values['no-lines']
      ? files.map(({ lines: _lines, patch_lines: _patch, ...counts }) => counts)
      : files;
    const json = JSON.stringify({
      repo: 'bench',
      branch: run % 2 === 0 ? 'main' : `feature-${run}`,
      coverage: 70 + (run % 10),
      commit: run.toString(16).padStart(40, '0'),
      ...(part === undefined ? {} : { part: `shard-${part + 1}`, expect_parts: PARTS }),
      files: sent,
    });
    const lineJson = JSON.stringify(
      files.map(({ path, lines, patch_lines }) => ({ path, lines, patch_lines })),
    );
    bodies.set(key, {
      gzip: gzipSync(json),
      inflated: json.length,
      lineGzip: gzipSync(lineJson, { level: 6 }).length,
      coverable: files.reduce((sum, file) => sum + file.coverable, 0),
      paths: files.map((file) => file.path),
    });
  }
  return bodies.get(key);
}

async function ingest(url, token, run, part) {
  const body = bodyOf(run, part);
  const started = performance.now();
  const response = await fetch(`${url}/v1/executions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'idempotency-key': `bench-${Date.now()}-${run}-${part}`,
    },
    body: body.gzip,
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 201) throw new Error(`${response.status} ${text}`);
  return { ms, id: JSON.parse(text).id };
}

async function readFile(url, token, id, path) {
  const started = performance.now();
  const response = await fetch(`${url}/v1/executions/${id}/files/${encodeURIComponent(path)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const answer = await response.json();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${response.status} ${JSON.stringify(answer)}`);
  return ms;
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** With --parts: each run's parts sent one after the other; the last part's and every part's times. */
async function measureParts(url, token) {
  for (let part = 0; part < PARTS; part += 1) await ingest(url, token, 1000, part);
  const last = [];
  const all = [];
  for (let run = 0; run < RUNS; run += 1) {
    for (let part = 0; part < PARTS; part += 1) {
      const { ms } = await ingest(url, token, run, part);
      all.push(ms);
      if (part === PARTS - 1) last.push(ms);
    }
  }
  last.sort((a, b) => a - b);
  all.sort((a, b) => a - b);
  return {
    p50: quantile(last, 0.5),
    p90: quantile(last, 0.9),
    max: last.at(-1),
    partP50: quantile(all, 0.5),
    partP90: quantile(all, 0.9),
  };
}

async function measure(name, env, storedLength) {
  const dir = mkdtempSync(join(tmpdir(), 'covgate-lines-bench-'));
  const server = await startServer(env(dir), dir);
  try {
    const { token, session } = await credentials(server.url, env(dir), dir);
    if (PARTS > 0) return { name, ...(await measureParts(server.url, token)) };
    for (let warm = 0; warm < 2; warm += 1) await ingest(server.url, token, 1000 + warm);
    const times = [];
    const ids = [];
    for (let run = 0; run < RUNS; run += 1) {
      const result = await ingest(server.url, token, run);
      times.push(result.ms);
      ids.push(result.id);
    }
    times.sort((a, b) => a - b);
    const stored = await storedLength(dir, ids[0]);
    const next = random(99);
    const reads = [];
    for (let read = 0; read < READS; read += 1) {
      const run = Math.floor(next() * RUNS);
      const paths = bodyOf(run).paths;
      reads.push(
        await readFile(server.url, session, ids[run], paths[Math.floor(next() * paths.length)]),
      );
    }
    reads.sort((a, b) => a - b);
    return {
      name,
      p50: quantile(times, 0.5),
      p90: quantile(times, 0.9),
      max: times.at(-1),
      stored,
      readP50: quantile(reads, 0.5),
      readP90: quantile(reads, 0.9),
    };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sqliteLength(dir, id) {
  const client = createClient({ url: `file:${join(dir, 'data', 'covgate.db')}` });
  try {
    const row = await client.execute({
      sql: 'SELECT LENGTH(data) AS n FROM execution_lines WHERE execution_id = ?',
      args: [id],
    });
    return Number(row.rows[0]?.n ?? 0);
  } finally {
    client.close();
  }
}

function mysqlLength(url) {
  return async (_dir, id) => {
    const connection = await mysql.createConnection(url);
    try {
      const [rows] = await connection.query(
        'SELECT LENGTH(data) AS n FROM execution_lines WHERE execution_id = ?',
        [id],
      );
      return Number(rows[0]?.n ?? 0);
    } finally {
      await connection.end();
    }
  };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const first = PARTS > 0 ? bodyOf(0, 0) : bodyOf(0);
// Every body made before any server starts: making one takes seconds, over the server's
// 5-second keep-alive, and a request sent on a socket the server just closed fails (EPIPE).
for (const run of [1000, 1001, ...Array.from({ length: RUNS }, (_, index) => index)]) {
  if (PARTS === 0) bodyOf(run);
  else if (run !== 1001) for (let part = 0; part < PARTS; part += 1) bodyOf(run, part);
}
const WIRE_LIMIT = 4 * 1024 * 1024;
if (first.gzip.byteLength > WIRE_LIMIT) {
  // The ingest takes 4 MiB on the wire by default (docs/api-reference.md): the server would answer 413.
  console.log(
    `\n${FILES} files, ${first.coverable} coverable lines: the body is ${kb(first.inflated)} of JSON, ${kb(first.gzip.byteLength)} gzip: over the ingest's 4 MiB on the wire (413); nothing measured.`,
  );
  process.exit(0);
}

const results = [];
results.push(
  await measure(
    'SQLite (embedded)',
    (dir) => ({ COVGATE_DATA_DIR: join(dir, 'data') }),
    sqliteLength,
  ),
);
if (values.mysql) {
  const admin = await mysql.createConnection(values.mysql.replace(/\/[^/]*$/, '/'));
  const database = new URL(values.mysql).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(`CREATE DATABASE \`${database}\``);
  await admin.end();
  results.push(
    await measure('MariaDB', () => ({ DATABASE_URL: values.mysql }), mysqlLength(values.mysql)),
  );
}

if (PARTS > 0) {
  const part = bodyOf(0, 0);
  console.log(
    `\n${RUNS} commits of ${PARTS} parts, each part ${FILES} files, ${part.coverable} coverable lines (body ${kb(part.inflated)} of JSON, ${kb(part.gzip.byteLength)} gzip)\n`,
  );
  console.log(`| store | last of ${PARTS} parts p50 | p90 | max | any part p50 | p90 |`);
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.p50.toFixed(0)} ms | ${r.p90.toFixed(0)} ms | ${r.max.toFixed(0)} ms | ${r.partP50.toFixed(0)} ms | ${r.partP90.toFixed(0)} ms |`,
    );
  }
  console.log(
    `\nNode ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model}); uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
  );
  process.exit(0);
}
console.log(
  `\n${RUNS} runs of ${FILES} files, ${first.coverable} coverable lines in run 0 (body ${kb(first.inflated)} of JSON, ${kb(first.gzip.byteLength)} gzip on the wire)\n`,
);
console.log(
  '| store | ingest p50 | p90 | max | stored line data (run 0) | gzip of its JSON | ratio | file lines p50 | p90 |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.p50.toFixed(0)} ms | ${r.p90.toFixed(0)} ms | ${r.max.toFixed(0)} ms | ${kb(r.stored)} | ${kb(first.lineGzip)} | ${(r.stored / first.lineGzip).toFixed(2)} | ${r.readP50?.toFixed(1) ?? '-'} ms | ${r.readP90?.toFixed(1) ?? '-'} ms |`,
  );
}
console.log(
  `\nNode ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model}); uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
);
