// covgate CLI benchmark: `covgate report` on a generated lcov of 200 000 source files against
// merely reading that file and splitting its lines in Node (both as whole processes, and both
// in-process without start-up), and the CLI's start-up against `node -e 0`. One command:
//   pnpm --filter @covgate/cli build && node bench/cli.mjs [--files 200000] [--runs 5] [--startups 20]
// Prints a Markdown table with the machine's load (`uptime`).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { currentUptime } from './support/machine.mjs';
import { median } from './support/stats.mjs';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '200000' },
    lines: { type: 'string', default: '20' },
    runs: { type: 'string', default: '5' },
    startups: { type: 'string', default: '20' },
  },
});
const FILES = Number(values.files);
const LINES = Number(values.lines);
const RUNS = Number(values.runs);
const STARTUPS = Number(values.startups);

const cliDir = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const bin = join(cliDir, 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.error('bench/cli.mjs: build the CLI first: pnpm --filter @covgate/cli build');
  process.exit(2);
}

/** An lcov tracefile of `files` records with `lines` DA lines each, two in three covered. */
function generateLcov(files, lines) {
  const parts = [];
  for (let f = 0; f < files; f++) {
    const record = [`TN:`, `SF:src/module${Math.floor(f / 1000)}/file${f}.ts`];
    let hit = 0;
    for (let l = 1; l <= lines; l++) {
      const count = (f + l) % 3 === 0 ? 0 : (l * 7) % 13;
      if (count > 0) hit++;
      record.push(`DA:${l},${count}`);
    }
    record.push(`LF:${lines}`, `LH:${hit}`, 'end_of_record');
    parts.push(record.join('\n'));
  }
  return `${parts.join('\n')}\n`;
}

function timeProcess(args, env) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${out}`));
      else resolve({ ms, out });
    });
  });
}

// A stand-in service answering POST /v1/executions, so `covgate report` runs whole.
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'bench' });
    res.end(
      JSON.stringify({
        id: 'exe_bench',
        repo: 'bench',
        branch: 'main',
        outcome: 'pass',
        delta: '0.00',
        coverage: 66.67,
        commit: null,
        created_at: '2026-11-22T00:00:00Z',
      }),
    );
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${server.address().port}`;

const dir = await mkdtemp(join(tmpdir(), 'covgate-bench-cli-'));
try {
  const report = join(dir, 'lcov.info');
  await writeFile(report, generateLcov(FILES, LINES));
  const size = (await stat(report)).size;
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    NO_COLOR: '1',
    COVGATE_TOKEN: `cvg_${'0'.repeat(40)}`,
    COVGATE_URL: url,
  };
  const reportArgs = [
    bin,
    'report',
    '--report',
    report,
    '--repo',
    'bench',
    '--branch',
    'main',
    '--commit',
    'abcdef1',
  ];
  const splitArgs = [
    '-e',
    `const t=require('fs').readFileSync(${JSON.stringify(report)},'utf8');const n=t.split('\\n').length;if(n<2)process.exit(1)`,
  ];

  // Alternate the two so load changes hit both alike; one warm-up each.
  await timeProcess(reportArgs, env);
  await timeProcess(splitArgs, env);
  const covgateMs = [];
  const splitMs = [];
  let lastOut = '';
  for (let i = 0; i < RUNS; i++) {
    const r = await timeProcess(reportArgs, env);
    lastOut = r.out;
    covgateMs.push(r.ms);
    splitMs.push((await timeProcess(splitArgs, env)).ms);
  }

  // In-process: the parser and merge alone against readFile + split, no start-up.
  const { parseLcov, mergeReports } = await import(join(cliDir, 'dist', 'index.js'));
  const inParse = [];
  const inSplit = [];
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    const text = await readFile(report, 'utf8');
    mergeReports([parseLcov(text)]);
    inParse.push(performance.now() - t);
    t = performance.now();
    (await readFile(report, 'utf8')).split('\n');
    inSplit.push(performance.now() - t);
  }

  const startCli = [];
  const startNode = [];
  await timeProcess([bin, '--version'], env);
  for (let i = 0; i < STARTUPS; i++) {
    startCli.push((await timeProcess([bin, '--version'], env)).ms);
    startNode.push((await timeProcess(['-e', '0'], env)).ms);
  }

  const uptime = currentUptime();
  const f = (ms) => `${ms.toFixed(0)} ms`;
  const rows = [
    [
      '`covgate report` (whole process, posts to a local stub)',
      median(covgateMs),
      median(splitMs),
      'readFileSync + split, whole process',
    ],
    [
      'parseLcov + mergeReports (in-process)',
      median(inParse),
      median(inSplit),
      'readFile + split (in-process)',
    ],
    ['`covgate --version` start-up', median(startCli), median(startNode), '`node -e 0`'],
  ];
  console.log(`covgate CLI benchmark, ${new Date().toISOString()}`);
  console.log(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`);
  console.log(`uptime: ${uptime}`);
  console.log(
    `lcov: ${FILES} source files x ${LINES} lines, ${(size / 1e6).toFixed(1)} MB; medians of ${RUNS} runs (start-up: ${STARTUPS})`,
  );
  console.log(`covgate said: ${lastOut.trim().split('\n').join(' | ')}`);
  console.log('');
  console.log('| measured | median | baseline | baseline median | ratio |');
  console.log('|---|---:|---|---:|---:|');
  for (const [name, a, base, baseName] of rows) {
    console.log(`| ${name} | ${f(a)} | ${baseName} | ${f(base)} | ${(a / base).toFixed(2)}x |`);
  }
} finally {
  server.close();
  await rm(dir, { recursive: true, force: true });
}
