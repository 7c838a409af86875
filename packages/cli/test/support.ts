import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../../test/support/processes.js';

/** The c8 binary installed with the package's dev dependencies. */
export const C8 = fileURLToPath(new URL('../node_modules/.bin/c8', import.meta.url));

/**
 * The sample project's test file, named explicitly: Node 22 and later read `node --test test/`
 * as a file named `test`, not as a folder to search.
 */
export const SAMPLE_TEST_FILE = 'test/shapes.test.mjs';

/** A small project: a module and a `node --test` suite that covers part of it. */
export async function writeSampleProject(options: { coverClassify: boolean }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'covgate-cli-'));
  await mkdir(join(dir, 'src'));
  await mkdir(join(dir, 'test'));
  await writeFile(
    join(dir, 'src', 'shapes.mjs'),
    `export function area(w, h) {
  if (w < 0 || h < 0) {
    throw new Error('negative side');
  }
  return w * h;
}

export function classify(a, b, c) {
  if (a === b && b === c) {
    return 'equilateral';
  }
  if (a === b || b === c || a === c) {
    return 'isosceles';
  }
  if (a + b <= c || a + c <= b || b + c <= a) {
    return 'impossible';
  }
  return 'scalene';
}

export function perimeter(w, h) {
  let total = 0;
  total += 2 * w;
  total += 2 * h;
  return total;
}
`,
  );
  await writeFile(
    join(dir, SAMPLE_TEST_FILE),
    `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { area, classify } from '../src/shapes.mjs';

test('area', () => assert.equal(area(3, 4), 12));
${options.coverClassify ? "test('classify', () => { assert.equal(classify(2, 2, 2), 'equilateral'); assert.equal(classify(3, 4, 5), 'scalene'); });" : ''}
// The end-to-end tests read which variables the test command saw.
if (process.env.COVGATE_ENV_DUMP) writeFileSync(process.env.COVGATE_ENV_DUMP, Object.keys(process.env).sort().join('\\n'));
`,
  );
  return dir;
}

/** Runs `command` to its end with only PATH and HOME; its stdout, or an error with its stderr. */
async function succeed(command: string, args: string[], cwd?: string): Promise<string> {
  const result = await run(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  }
  return result.stdout;
}

/** Runs c8 with every reporter covgate reads over `node --test` in `dir`. */
export async function runC8(dir: string): Promise<void> {
  await succeed(
    C8,
    [
      '--reporter=lcov',
      '--reporter=cobertura',
      '--reporter=clover',
      '--reporter=json-summary',
      '--reporter=json',
      '--reports-dir=coverage',
      process.execPath,
      '--test',
      SAMPLE_TEST_FILE,
    ],
    dir,
  );
}

/**
 * A project whose module has `statements` one-line statements in a function the test calls
 * and one function it never calls: c8 counts `statements + 8` lines (7 of the module, 1 of `main.mjs` that calls it), 2 of them
 * uncovered.
 */
export async function writeLongModuleProject(statements: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'covgate-cli-long-'));
  const body = '  x += 1;\n'.repeat(statements);
  await writeFile(
    join(dir, 'mod.mjs'),
    `export function run() {\n  let x = 0;\n${body}  return x;\n}\nexport function never() {\n  return 0;\n}\n`,
  );
  await writeFile(join(dir, 'main.mjs'), "import { run } from './mod.mjs'; run();\n");
  return dir;
}

/** Runs c8 over `node <script>` in `dir` with the lcov and text-summary reporters; its stdout. */
export async function runC8Text(dir: string, script: string): Promise<string> {
  return succeed(
    C8,
    [
      '--reporter=lcov',
      '--reporter=text-summary',
      '--reports-dir=coverage',
      process.execPath,
      script,
    ],
    dir,
  );
}

/** The reporters of one c8 run that covgate reads, as c8 names them. */
export const C8_REPORTERS = ['lcov', 'json', 'cobertura', 'clover', 'json-summary'];

/** Runs c8 with `reporters` over `node <script>` in `cwd`, reports in `cwd/coverage`. */
export async function runC8Script(
  cwd: string,
  script: string,
  reporters: readonly string[] = C8_REPORTERS,
): Promise<void> {
  await succeed(
    C8,
    [
      ...reporters.map((r) => `--reporter=${r}`),
      '--reports-dir=coverage',
      process.execPath,
      script,
    ],
    cwd,
  );
}

/**
 * A git repository with two packages whose modules are both `index.js` (6 and 11 lines), each
 * with a test `index.test.js` that leaves part of it uncovered, and `all.test.js` at the root
 * that runs both (c8 leaves `*.test.js` out of its figures).
 */
export async function writeMonorepo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'covgate-cli-mono-'));
  await succeed('git', ['init', '-q', dir]);
  const files: Record<string, string> = {
    'packages/a/index.js':
      'exports.add = function add(a, b) {\n  return a + b;\n};\nexports.sub = function sub(a, b) {\n  return a - b;\n};\n',
    'packages/a/index.test.js': "require('./index.js').add(1, 2);\n",
    'packages/b/index.js':
      "exports.mul = function mul(a, b) {\n  if (a === 0) {\n    return 0;\n  }\n  return a * b;\n};\nexports.div = function div(a, b) {\n  if (b === 0) throw new Error('division by zero');\n  return a / b;\n};\n\n",
    'packages/b/index.test.js': "require('./index.js').mul(2, 3);\n",
    'all.test.js':
      "require('./packages/a/index.test.js');\nrequire('./packages/b/index.test.js');\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}
