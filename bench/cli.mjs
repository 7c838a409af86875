// covgate CLI benchmark (issues 9 and 23): covgate's parse (`readReport`) and the whole
// `covgate report` on a generated report of 200 000 source files in each format it streams
// (lcov, Cobertura, Clover, JaCoCo), against merely reading that file and splitting it (into
// lines for lcov, tags for XML), each as a whole process: wall time, CPU time and peak memory
// side by side; an lcov file of about 1 GB once; and the CLI's start-up.
//   pnpm --filter @covgate/cli build && node bench/cli.mjs
//     [--files 200000] [--lines 20] [--runs 3] [--formats lcov,cobertura,clover,jacoco]
//     [--huge-mb 1024] (0: skip the 1 GB lcov) [--startups 20]
// Goals (issue 23) per XML format: time <= 3x reading and splitting the file, peak memory
// <= 4x the file's size. Reports are generated in the system's temporary folder and deleted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { expectedLines, GENERATED_FORMATS, writeReport } from './support/coverage-reports.mjs';
import { currentUptime, machineSummary } from './support/machine.mjs';
import { median } from './support/stats.mjs';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '200000' },
    lines: { type: 'string', default: '20' },
    runs: { type: 'string', default: '3' },
    formats: { type: 'string', default: GENERATED_FORMATS.join(',') },
    'huge-mb': { type: 'string', default: '1024' },
    startups: { type: 'string', default: '20' },
  },
});
const FILES = Number(values.files);
const LINES = Number(values.lines);
const RUNS = Number(values.runs);
const FORMATS = values.formats.split(',');
const HUGE_MB = Number(values['huge-mb']);
const STARTUPS = Number(values.startups);

const cliDir = fileURLToPath(new URL('../packages/cli/', import.meta.url));
const bin = join(cliDir, 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.error('bench/cli.mjs: build the CLI first: pnpm --filter @covgate/cli build');
  process.exit(2);
}
const usageHook = pathToFileURL(
  fileURLToPath(new URL('./support/usage-at-exit.mjs', import.meta.url)),
).href;

/**
 * Runs `node args` in `cwd` to its end: wall time from spawn to exit, and the child's own CPU
 * time and peak RSS as it reported them at exit.
 */
async function measure(args, env, usageFile, cwd) {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--import', usageHook, ...args], {
    cwd,
    env: { ...env, BENCH_USAGE_FILE: usageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const [code] = await once(child, 'exit');
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${out}`);
  const usage = JSON.parse(await readFile(usageFile, 'utf8'));
  return { ms, cpuMs: usage.cpuMs, rssMb: (usage.maxRssKb * 1024) / 1e6, out };
}

/** What the baselines split on: lines for lcov, tags for XML (JaCoCo writes one line). */
const separatorOf = (format) => (format === 'lcov' ? '\\n' : '<');
const splitScript = (file, format) =>
  `const n=require('fs').readFileSync(${JSON.stringify(file)},'utf8').split('${separatorOf(format)}').length;if(n<2)process.exit(1)`;
const countScript = (file, format) =>
  `let n=0;require('fs').createReadStream(${JSON.stringify(file)},{encoding:'utf8',highWaterMark:1<<20}).on('data',c=>{for(let i=c.indexOf('${separatorOf(format)}');i!==-1;i=c.indexOf('${separatorOf(format)}',i+1))n++}).on('end',()=>{if(n<2)process.exit(1)})`;
/** covgate's parse alone, through the library: `readReport`, then the lines summed. */
const parseScript = (file) =>
  `import(${JSON.stringify(pathToFileURL(join(cliDir, 'dist', 'index.js')).href)}).then(async({readReport})=>{let c=0,n=0;for(const f of (await readReport(${JSON.stringify(file)})).files){c+=f.covered;n+=f.coverable}console.log(c+' of '+n+' lines')})`;

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
        baseline: null,
      }),
    );
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${server.address().port}`;

// The reports and covgate's working folder (not a git checkout: paths are relative to it).
const dir = await mkdtemp(join(tmpdir(), 'covgate-bench-cli-'));
const usageFile = join(tmpdir(), `covgate-bench-usage-${process.pid}.json`);
const env = {
  PATH: process.env.PATH,
  HOME: dir,
  NO_COLOR: '1',
  COVGATE_TOKEN: `cvg_${'0'.repeat(40)}`,
  COVGATE_URL: url,
};
const reportArgs = (file) => [
  bin,
  'report',
  '--report',
  file,
  '--repo',
  'bench',
  '--branch',
  'main',
  '--commit',
  'abcdef1',
];
const expected = expectedLines(FILES, LINES);

/** What covgate printed, checked against the lines the generator wrote. */
function checkSaid(out, what, lines) {
  const said = /(\d+) of (\d+) lines/.exec(out);
  const text = out.trim().split('\n').join(' | ');
  if (!said) throw new Error(`${what}: covgate's line count not found in: ${text}`);
  if (Number(said[1]) !== lines.covered || Number(said[2]) !== lines.coverable) {
    throw new Error(`${what}: covgate counted other lines than the generator wrote: ${text}`);
  }
  return text;
}

const started = new Date().toISOString();
const uptimeBefore = currentUptime();
const rows = [];
const said = {};
try {
  for (const format of FORMATS) {
    const file = join(dir, `report.${format}`);
    await writeReport(file, format, FILES, LINES);
    const sizeMb = (await stat(file)).size / 1e6;
    const runs = {
      split: () => measure(['-e', splitScript(file, format)], env, usageFile, dir),
      parse: () => measure(['-e', parseScript(file)], env, usageFile, dir),
      covgate: () => measure(reportArgs(file), env, usageFile, dir),
      count: () => measure(['-e', countScript(file, format)], env, usageFile, dir),
    };
    const results = { split: [], parse: [], covgate: [], count: [] };
    // One warm-up each (page cache, compiled code), then alternate so load hits all alike.
    for (const run of Object.values(runs)) await run();
    for (let i = 0; i < RUNS; i++) {
      for (const [name, run] of Object.entries(runs)) results[name].push(await run());
    }
    for (const run of results.parse) checkSaid(run.out, `${format} parse`, expected);
    for (const run of results.covgate) said[format] = checkSaid(run.out, format, expected);
    rows.push({ format, sizeMb, ...results });
    await rm(file);
  }

  let huge;
  if (HUGE_MB > 0) {
    // Distinct files until the lcov passes HUGE_MB: far beyond the longest string Node.js holds.
    const perFile = (await lcovBytesPerFile()) / 1e6;
    const files = Math.ceil(HUGE_MB / perFile);
    const file = join(dir, 'huge.info');
    await writeReport(file, 'lcov', files, LINES);
    const sizeMb = (await stat(file)).size / 1e6;
    const lines = expectedLines(files, LINES);
    const parse = await measure(['-e', parseScript(file)], env, usageFile, dir);
    checkSaid(parse.out, 'huge lcov parse', lines);
    const run = await measure(reportArgs(file), env, usageFile, dir);
    checkSaid(run.out, 'huge lcov', lines);
    const count = await measure(['-e', countScript(file, 'lcov')], env, usageFile, dir);
    huge = { files, sizeMb, parse, run, count };
    await rm(file);
  }

  const startCli = [];
  const startNode = [];
  await measure([bin, '--version'], env, usageFile, dir);
  for (let i = 0; i < STARTUPS; i++) {
    startCli.push((await measure([bin, '--version'], env, usageFile, dir)).ms);
    startNode.push((await measure(['-e', '0'], env, usageFile, dir)).ms);
  }

  const med = (runs, key) => median(runs.map((r) => r[key]));
  const ms = (x) => `${Math.round(x)} ms`;
  const mb = (x) => `${Math.round(x)} MB`;
  const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
  const both = (runs) => `${ms(med(runs, 'ms'))} / ${ms(med(runs, 'cpuMs'))}`;
  const ratios = (runs, base) =>
    `${ratio(med(runs, 'ms'), med(base, 'ms'))} / ${ratio(med(runs, 'cpuMs'), med(base, 'cpuMs'))}`;
  console.log(`covgate CLI benchmark, ${started}`);
  console.log(`machine: ${machineSummary()}`);
  console.log(`uptime before: ${uptimeBefore}`);
  console.log(`uptime after:  ${currentUptime()}`);
  console.log(
    `reports: ${FILES} source files x ${LINES} lines; medians of ${RUNS} runs; every figure a whole \`node\` process (wall from spawn to exit / its own CPU time)`,
  );
  for (const [format, text] of Object.entries(said))
    console.log(`covgate said (${format}): ${text}`);
  console.log('');
  console.log(
    '| format | file | read + split | parse (`readReport`) | parse / read + split | `covgate report` | report / read + split | stream + count |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.format} | ${mb(row.sizeMb)} | ${both(row.split)} | ${both(row.parse)} | ${ratios(row.parse, row.split)} | ${both(row.covgate)} | ${ratios(row.covgate, row.split)} | ${ms(med(row.count, 'ms'))} |`,
    );
  }
  console.log('');
  console.log(
    '| format | file | read + split peak RSS | parse peak RSS | parse RSS / file | `covgate report` peak RSS | report RSS / file |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const [parse, report] = [med(row.parse, 'rssMb'), med(row.covgate, 'rssMb')];
    console.log(
      `| ${row.format} | ${mb(row.sizeMb)} | ${mb(med(row.split, 'rssMb'))} | ${mb(parse)} | ${ratio(parse, row.sizeMb)} | ${mb(report)} | ${ratio(report, row.sizeMb)} |`,
    );
  }
  if (huge) {
    const { parse, run, count } = huge;
    console.log('');
    console.log(
      `lcov of ${huge.files} files, ${mb(huge.sizeMb)}, one run each: parse ${ms(parse.ms)} / ${ms(parse.cpuMs)} CPU, peak RSS ${mb(parse.rssMb)} (${ratio(parse.rssMb, huge.sizeMb)} the file); \`covgate report\` ${ms(run.ms)} / ${ms(run.cpuMs)} CPU, peak RSS ${mb(run.rssMb)} (${ratio(run.rssMb, huge.sizeMb)}); stream + count lines ${ms(count.ms)} / ${ms(count.cpuMs)} CPU`,
    );
    console.log(`covgate said: ${run.out.trim().split('\n').join(' | ')}`);
  }
  console.log('');
  console.log(
    `start-up: \`covgate --version\` ${ms(median(startCli))}, \`node -e 0\` ${ms(median(startNode))} (${ratio(median(startCli), median(startNode))}; medians of ${STARTUPS})`,
  );
} finally {
  server.close();
  await rm(dir, { recursive: true, force: true });
  await rm(usageFile, { force: true });
}

async function lcovBytesPerFile() {
  const sample = join(dir, 'sample.info');
  await writeReport(sample, 'lcov', 1000, LINES);
  const { size } = await stat(sample);
  await rm(sample);
  return size / 1000;
}
