// Storage per 1 000 runs (issue 45, item 3): what a run's per-file list and line data cost on
// disk, and what retention gives back. Through the built reference server, on the embedded
// SQLite store and on MariaDB: `--runs` runs of `--files` files with line data are ingested
// (half on main, half on 10 feature branches), the store's size is read, then
// `covgate-admin prune` with RETENTION_RUNS_PER_BRANCH=1 deletes the detail of every run but
// each branch's latest (and what they keep), and the size is read again after the space is
// given back (SQLite `VACUUM`, MariaDB `OPTIMIZE TABLE`). Sizes: the SQLite file after a WAL
// checkpoint; MariaDB `data_length + index_length` of every table of the database after
// `ANALYZE TABLE`. Per 1 000 runs: the size divided by the runs, times 1 000.
//
//   pnpm run build
//   node bench/retention-storage.mjs [--runs 1000] [--files 200] [--lines 40] [--mysql mysql://root@127.0.0.1:3306/bench_retention]
//
// The MariaDB database is dropped and made anew. Prints Markdown with the machine at the end.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
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
    runs: { type: 'string', default: '1000' },
    files: { type: 'string', default: '200' },
    lines: { type: 'string', default: '40' },
    mysql: { type: 'string', default: process.env.COVGATE_MYSQL_URL ?? '' },
  },
});
const RUNS = Number(values.runs);
const FILES = Number(values.files);
const LINES = Number(values.lines);
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

/** One file's lines as the CLI encodes them: ranges of 1-8 lines, covered with p 0.9/0.4. */
function fileLines(next) {
  const target = Math.max(1, Math.round(LINES * (0.5 + next())));
  const coverable = [];
  let count = 0;
  while (count < target) {
    const gap = (coverable.length === 0 ? 1 : 2) + Math.floor(next() * 5);
    const length = Math.min(target - count, 1 + Math.floor(next() * 8));
    coverable.push(gap, length);
    count += length;
  }
  const runs = [];
  let hit = true;
  let run = 0;
  for (let line = 0; line < count; line += 1) {
    const isHit = next() < (hit ? 0.9 : 0.4);
    if (isHit !== hit) {
      runs.push(run);
      hit = isHit;
      run = 0;
    }
    run += 1;
  }
  runs.push(run);
  const covered = runs.reduce((sum, value, index) => (index % 2 === 0 ? sum + value : sum), 0);
  return { lines: { coverable, covered: runs }, covered, coverable: count };
}

/** Run `run`'s body, gzip: `FILES` files with lines, on main or a feature branch. */
function body(run) {
  const next = random(run * 7919 + 1);
  const files = [];
  for (let i = 0; i < FILES; i += 1) {
    const { lines, covered, coverable } = fileLines(next);
    files.push({
      path: `packages/pkg-${String(i % 40).padStart(2, '0')}/src/module-${String(Math.floor(i / 40)).padStart(4, '0')}/file-${i}.ts`,
      covered,
      coverable,
      lines,
    });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return gzipSync(
    JSON.stringify({
      repo: 'bench',
      branch: run % 2 === 0 ? 'main' : `feature-${run % 20}`,
      coverage: 70 + (run % 10),
      commit: (run + 1).toString(16).padStart(40, '0'),
      files,
    }),
  );
}

const admin = (args, env, cwd) =>
  execFileSync(process.execPath, [join(serverDist, 'admin.js'), ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, ...env },
    encoding: 'utf8',
  });

async function ingest(url, secret, run) {
  const response = await fetch(`${url}/v1/executions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    },
    body: body(run),
  });
  if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
}

/** The SQLite file's size after its WAL is checkpointed (and, `vacuum`, after VACUUM). */
async function sqliteSize(dir, vacuum) {
  const file = join(dir, 'data', 'covgate.db');
  const client = createClient({ url: `file:${file}` });
  try {
    if (vacuum) await client.execute('VACUUM');
    await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    client.close();
  }
  return statSync(file).size;
}

/** `data_length + index_length` of the database's tables (after OPTIMIZE with `vacuum`). */
function mysqlSize(url) {
  return async (_dir, vacuum) => {
    const connection = await mysql.createConnection(url);
    try {
      const database = new URL(url).pathname.slice(1);
      const [tables] = await connection.query(
        'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ?',
        [database],
      );
      for (const { name } of tables) {
        if (vacuum) await connection.query(`OPTIMIZE TABLE \`${name}\``);
        await connection.query(`ANALYZE TABLE \`${name}\``);
      }
      const [[row]] = await connection.query(
        'SELECT SUM(data_length + index_length) AS size FROM information_schema.tables WHERE table_schema = ?',
        [database],
      );
      return Number(row.size);
    } finally {
      await connection.end();
    }
  };
}

async function measure(name, env, size) {
  const dir = mkdtempSync(join(tmpdir(), 'covgate-retention-bench-'));
  const server = await startBenchServer(serverDist, env(dir), dir);
  try {
    const { token: secret } = await benchCredentials(serverDist, server.url, env(dir), dir, {
      plan: 'enterprise',
    });
    const empty = await size(dir, false);
    const started = performance.now();
    for (let run = 0; run < RUNS; run += 1) await ingest(server.url, secret, run);
    const ingestSeconds = (performance.now() - started) / 1000;
    const full = await size(dir, false);
    const pruneStarted = performance.now();
    const report = JSON.parse(
      admin(['prune', '--json'], { ...env(dir), RETENTION_RUNS_PER_BRANCH: '1' }, dir),
    );
    const pruneSeconds = (performance.now() - pruneStarted) / 1000;
    const pruned = await size(dir, true);
    return { name, empty, full, pruned, report, ingestSeconds, pruneSeconds };
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
results.push(
  await measure(
    'SQLite (embedded)',
    (dir) => ({ COVGATE_DATA_DIR: join(dir, 'data') }),
    sqliteSize,
  ),
);
if (values.mysql) {
  const root = await mysql.createConnection(values.mysql.replace(/\/[^/]*$/, '/'));
  const database = new URL(values.mysql).pathname.slice(1);
  await root.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await root.query(`CREATE DATABASE \`${database}\``);
  await root.end();
  results.push(
    await measure(
      'MariaDB',
      (dir) => ({ DATABASE_URL: values.mysql, COVGATE_DATA_DIR: join(dir, 'data') }),
      mysqlSize(values.mysql),
    ),
  );
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
const per1000 = (bytes) => mib((bytes / RUNS) * 1000);
console.log(
  `\n${RUNS} runs of ${FILES} files with line data (about ${LINES} coverable lines a file), half on main, half on 10 feature branches\n`,
);
console.log(
  '| store | per 1 000 runs with lists and line data | per 1 000 runs after prune | detail the prune counted | runs pruned | ingest of all runs | prune |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.name} | ${per1000(r.full - r.empty)} | ${per1000(r.pruned - r.empty)} | ${mib(r.report.bytes)} in ${r.report.rows} rows | ${r.report.runs} of ${RUNS} | ${r.ingestSeconds.toFixed(1)} s | ${r.pruneSeconds.toFixed(1)} s |`,
  );
}
console.log(
  `\nNode ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model}); uptime: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`,
);
