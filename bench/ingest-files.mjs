// Ingest of a run with a 50 000-file `files` list (issue 29): p50/p90 latency of
// `POST /v1/executions` through the built reference server, and the bytes each such run adds
// to the database, on the embedded SQLite store and on MariaDB. Then the run page's read:
// p50/p90 of `GET /v1/executions/{id}` of each pull-request run (a baseline run of as many
// files, so `changes`, `patch_files` and `tree` are all computed).
//
//   pnpm run build
//   node bench/ingest-files.mjs [--runs 30] [--files 50000] [--patch-every 100] [--mysql mysql://root@127.0.0.1:3306/bench_ingest]
//
// `--patch-every n`: every n-th file carries per-file patch counts, as the CLI sends them for
// the files a pull request changes (0: none).
//
// Each run is sent as the CLI sends it: gzip-compressed JSON with an Idempotency-Key, sorted
// by path, paths
// like `packages/pkg-17/src/module-0421/file-03.ts`, the counts varying per run. Latency is the
// client's wall time for the whole request, one request at a time after two warm-ups. Stored
// bytes: SQLite, the growth of the database file (after a WAL checkpoint) per run; MariaDB,
// the growth of data_length + index_length of `executions` and `execution_files` per run
// (InnoDB, after ANALYZE TABLE). Also the compressed list's own size. Prints Markdown with the
// machine (`uptime`, CPUs, Node) at the end.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { benchCredentials, startBenchServer } from './support/built-server.mjs';

// The drivers the stores use, from their packages (the bench package does not depend on them).
const fromPackage = (name) =>
  createRequire(new URL(`../packages/${name}/package.json`, import.meta.url));
const { createClient } = fromPackage('sqlite')('@libsql/client');
const mysql = fromPackage('mysql')('mysql2/promise');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    files: { type: 'string', default: '50000' },
    'patch-every': { type: 'string', default: '100' },
    // Another build's `examples/server/dist` (an A/B against main); the run-page read is skipped
    // when its answer has no `changes`.
    server: { type: 'string', default: '' },
    mysql: { type: 'string', default: process.env.COVGATE_MYSQL_URL ?? '' },
  },
});
const RUNS = Number(values.runs);
const FILES = Number(values.files);
const PATCH_EVERY = Number(values['patch-every']);
const serverDist = values.server || new URL('../examples/server/dist/', import.meta.url).pathname;

function fileList(seed) {
  const files = [];
  for (let i = 0; i < FILES; i += 1) {
    const coverable = 5 + ((i * 7919 + seed) % 400);
    const covered = (i * 31 + seed * 13) % (coverable + 1);
    const file = {
      path: `packages/pkg-${String(i % 40).padStart(2, '0')}/src/module-${String(Math.floor(i / 40) % 1000).padStart(4, '0')}/file-${String(i % 97).padStart(2, '0')}-${i}.ts`,
      covered,
      coverable,
    };
    if (PATCH_EVERY > 0 && i % PATCH_EVERY === 0) {
      file.patch_coverable = Math.min(coverable, 12);
      file.patch_covered = Math.min(covered, file.patch_coverable);
    }
    files.push(file);
  }
  // Sorted by path, as the CLI sends it (the server sorts an unsorted list itself).
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function ingest(url, token, run) {
  const body = gzipSync(
    JSON.stringify({
      repo: 'bench',
      branch: run % 2 === 0 ? 'main' : `feature-${run}`,
      coverage: 70 + (run % 10),
      commit: run.toString(16).padStart(40, '0'),
      base_commit: '0'.repeat(40),
      patch: { covered: 10, coverable: 12 },
      files: fileList(run),
    }),
  );
  const started = performance.now();
  const response = await fetch(`${url}/v1/executions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'idempotency-key': `bench-${Date.now()}-${run}`,
    },
    body,
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 201) throw new Error(`${response.status} ${text}`);
  return { ms, wire: body.byteLength, id: JSON.parse(text).id, pullRequest: run % 2 === 1 };
}

/** Reads a run as the run page does; the answer must carry its changes. */
async function readDetail(url, token, id) {
  const started = performance.now();
  const response = await fetch(`${url}/v1/executions/${id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const detail = await response.json();
  const ms = performance.now() - started;
  if (response.status !== 200 || detail.changes === null || detail.changes === undefined) {
    throw new Error(`${response.status} ${JSON.stringify(detail).slice(0, 200)}`);
  }
  return { ms, bytes: JSON.stringify(detail).length, folders: detail.tree.length };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(name, env, bytesNow) {
  const dir = mkdtempSync(join(tmpdir(), 'covgate-ingest-bench-'));
  const server = await startBenchServer(serverDist, env(dir), dir);
  try {
    const { token } = await benchCredentials(serverDist, server.url, env(dir), dir);
    for (let warm = 0; warm < 2; warm += 1) await ingest(server.url, token, 1000 + warm);
    const before = await bytesNow(dir);
    const times = [];
    const pullRequests = [];
    let wire = 0;
    for (let run = 0; run < RUNS; run += 1) {
      const result = await ingest(server.url, token, run);
      times.push(result.ms);
      wire = result.wire;
      if (result.pullRequest) pullRequests.push(result.id);
    }
    const after = await bytesNow(dir);
    times.sort((a, b) => a - b);
    const reads = [];
    if (!values.server) {
      for (const id of pullRequests) reads.push(await readDetail(server.url, token, id));
    }
    const readTimes = reads.map((read) => read.ms).sort((a, b) => a - b);
    return {
      detailP50: quantile(readTimes, 0.5) ?? Number.NaN,
      detailP90: quantile(readTimes, 0.9) ?? Number.NaN,
      detailBytes: reads[0]?.bytes ?? 0,
      folders: reads[0]?.folders ?? 0,
      name,
      p50: quantile(times, 0.5),
      p90: quantile(times, 0.9),
      max: times.at(-1),
      perRun: (after.total - before.total) / RUNS,
      blob: after.blob,
      wire,
    };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sqliteBytes(dir) {
  const path = join(dir, 'data', 'covgate.db');
  const client = createClient({ url: `file:${path}` });
  try {
    await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
    const blob = await client.execute('SELECT AVG(LENGTH(data)) AS n FROM execution_files');
    return { total: statSync(path).size, blob: Number(blob.rows[0]?.n ?? 0) };
  } finally {
    client.close();
  }
}

function mysqlBytes(url) {
  return async () => {
    const connection = await mysql.createConnection(url);
    try {
      await connection.query('ANALYZE TABLE executions, execution_files');
      const [rows] = await connection.query(
        `SELECT SUM(data_length + index_length) AS n FROM information_schema.tables
         WHERE table_schema = DATABASE() AND table_name IN ('executions', 'execution_files')`,
      );
      const [blob] = await connection.query('SELECT AVG(LENGTH(data)) AS n FROM execution_files');
      return { total: Number(rows[0].n), blob: Number(blob[0].n ?? 0) };
    } finally {
      await connection.end();
    }
  };
}

const results = [];
results.push(
  await measure(
    'SQLite (embedded)',
    (dir) => ({ COVGATE_DATA_DIR: join(dir, 'data') }),
    sqliteBytes,
  ),
);
if (values.mysql) {
  const admin = await mysql.createConnection(values.mysql.replace(/\/[^/]*$/, '/'));
  const database = new URL(values.mysql).pathname.slice(1);
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin.query(`CREATE DATABASE \`${database}\``);
  await admin.end();
  results.push(
    await measure('MariaDB', () => ({ DATABASE_URL: values.mysql }), mysqlBytes(values.mysql)),
  );
}

const kb = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
console.log(
  `\n${RUNS} runs of ${FILES} files each (gzip body ${kb(results[0].wire)} on the wire)\n`,
);
console.log('| store | p50 | p90 | max | stored per run | of which the files blob |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.p50.toFixed(0)} ms | ${r.p90.toFixed(0)} ms | ${r.max.toFixed(0)} ms | ${kb(r.perRun)} | ${kb(r.blob)} |`,
  );
}
console.log(
  `\nGET /v1/executions/{id} of each of the ${Math.floor(RUNS / 2)} pull-request runs (against a baseline run of ${FILES} files; answer ${kb(results[0].detailBytes)} of JSON, ${results[0].folders} folders):\n`,
);
console.log('| store | p50 | p90 |');
console.log('|---|---:|---:|');
for (const r of results) {
  console.log(`| ${r.name} | ${r.detailP50.toFixed(0)} ms | ${r.detailP90.toFixed(0)} ms |`);
}
console.log(
  `\nNode ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model}); uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
);
