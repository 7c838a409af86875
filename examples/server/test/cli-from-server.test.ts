import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Started, startListening } from '../../../test/support/processes.js';

// A CI machine that reaches nothing but its covgate server: the CLI comes from the server
// (`/cli/covgate.tgz`), npm's registry is an address nothing answers at, the npm cache is empty,
// and the report comes from Node's own test runner. Installing and gating must still work.

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const built = existsSync(join(dist, 'main.js')) && existsSync(join(dist, 'cli', 'covgate.tgz'));
if (!built) {
  console.warn(
    '[covgate] CLI-from-the-server test SKIPPED: run `pnpm build` first (`pnpm test` does)',
  );
}

const SOURCE = `export function sign(n) {
  if (n > 0) return 1;
  if (n < 0) return -1;
  return 0;
}
`;

/** A test file calling `sign` with `inputs`: fewer inputs, fewer lines covered. */
const testFile = (inputs: number[]) => `import assert from 'node:assert';
import { test } from 'node:test';
import { sign } from './sign.mjs';
test('sign', () => {
${inputs.map((n) => `  assert.equal(sign(${n}), Math.sign(${n}));`).join('\n')}
});
`;

describe.skipIf(!built && process.env.CI !== '1')('the CLI served by the built server', () => {
  let work: string;
  let server: Started;
  let token: string;
  /** The environment of a job that reaches only the covgate server. */
  let offline: (cache: string) => NodeJS.ProcessEnv;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'covgate-cli-from-server-'));
    const dataDir = join(work, 'data');
    server = await startListening([join(dist, 'main.js')], {
      env: { PATH: process.env.PATH, PORT: '0', COVGATE_DATA_DIR: dataDir },
    });
    const admin = await run(process.execPath, [join(dist, 'admin.js'), 'bootstrap', 'acme'], {
      env: { PATH: process.env.PATH, COVGATE_DATA_DIR: dataDir },
    });
    const session = /COVGATE_SESSION=(cvgs_[0-9a-f]{64})/.exec(admin.stdout)?.[1];
    const created = await fetch(`${server.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    });
    token = ((await created.json()) as { secret: string }).secret;
    const home = join(work, 'home');
    await mkdir(home);
    offline = (cache) => ({
      PATH: process.env.PATH,
      HOME: home,
      // Port 9 (discard): a registry nothing answers at; no retries, so a request fails fast.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_cache: cache,
      npm_config_fetch_retries: '0',
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      COVGATE_URL: server.url,
      COVGATE_TOKEN: token,
    });
  });

  afterAll(async () => {
    await server?.stop('SIGTERM');
    if (work) await rm(work, { recursive: true, force: true });
  });

  /**
   * The totals of the `lcov.info` node:test wrote: Node 24 leaves the test file out, 20 and 22
   * list it, so the figures covgate must print come from the report itself.
   */
  async function lcovTotals(dir: string) {
    const text = await readFile(join(dir, 'lcov.info'), 'utf8');
    const sum = (key: string) =>
      [...text.matchAll(new RegExp(`^${key}:(\\d+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
    const [covered, coverable] = [sum('LH'), sum('LF')];
    const files = [...text.matchAll(/^SF:/gm)].length;
    const percent = (Math.floor((covered * 10000) / coverable) / 100).toFixed(2);
    return { covered, coverable, files, percent };
  }

  /** A scratch project whose node:test run writes `lcov.info`, covering `inputs`. */
  async function project(name: string, inputs: number[]): Promise<string> {
    const dir = join(work, name);
    await mkdir(dir);
    await writeFile(join(dir, 'sign.mjs'), SOURCE);
    await writeFile(join(dir, 'sign.test.mjs'), testFile(inputs));
    const tested = await run(
      process.execPath,
      [
        '--test',
        '--experimental-test-coverage',
        '--test-reporter=lcov',
        '--test-reporter-destination=lcov.info',
        'sign.test.mjs',
      ],
      { cwd: dir, env: { PATH: process.env.PATH } },
    );
    expect(tested.code, tested.stderr).toBe(0);
    return dir;
  }

  it('npm install <server>/cli/covgate.tgz installs one package and gates a real report', async () => {
    const dir = await project('installed', [2, -2, 0]);
    const env = offline(join(work, 'cache-install'));
    const installed = await run(
      'npm',
      ['install', '--no-save', '--loglevel=error', `${server.url}/cli/covgate.tgz`],
      { cwd: dir, env },
    );
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    // One package, no dependency fetched: the CLI is the whole of node_modules.
    const lock = JSON.parse(
      await readFile(join(dir, 'node_modules', '.package-lock.json'), 'utf8'),
    );
    expect(Object.keys(lock.packages)).toEqual(['node_modules/@covgate/cli']);

    const gated = await run(
      'npx',
      ['covgate', 'report', '--repo', 'web', '--branch', 'main', '--report', 'lcov.info'],
      { cwd: dir, env },
    );
    const lines = await lcovTotals(dir);
    expect(lines.percent).toBe('100.00');
    expect(gated.stderr).toContain(
      `covgate: lcov.info (lcov): ${lines.covered} of ${lines.coverable} lines in ${lines.files} file${lines.files === 1 ? '' : 's'}, 100.00%`,
    );
    expect(gated.stdout).toBe(
      'web@main: coverage 100.00%, no baseline on main yet: nothing to compare, recorded as the first run\n',
    );
    expect(gated.code).toBe(0);
  }, 120_000);

  it('npx --yes <server>/cli/covgate.tgz report fails a run whose coverage dropped, exit 1', async () => {
    const dir = await project('npx', [2]);
    const gated = await run(
      'npx',
      [
        '--yes',
        `${server.url}/cli/covgate.tgz`,
        'report',
        '--repo',
        'web',
        '--branch',
        'feature',
        '--report',
        'lcov.info',
      ],
      { cwd: dir, env: offline(join(work, 'cache-npx')) },
    );
    const { percent } = await lcovTotals(dir);
    // The drop is real (Node 20 and 22: 81.81; 24, without the test file: 60.00).
    expect(Number(percent)).toBeLessThan(100);
    expect(gated.stdout).toBe(
      `fail web@feature: coverage ${percent}%, baseline 100.00% on main, delta -${(100 - Number(percent)).toFixed(2)}\n`,
    );
    expect(gated.code).toBe(1);

    const listed = await fetch(`${server.url}/v1/executions?org=acme&repo=web`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { executions } = (await listed.json()) as {
      executions: { branch: string; outcome: string }[];
    };
    expect(executions.map(({ branch, outcome }) => [branch, outcome])).toEqual([
      ['feature', 'fail'],
      ['main', 'pass'],
    ]);
  }, 120_000);
});
