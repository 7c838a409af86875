import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import markTestRun from './global-setup.js';
import { selectLeftovers } from './leftover-processes.js';
import { hasProcessTable, type ProcessInfo, RUN_MARKER, readProcess } from './process-table.js';

const entry = (pid: number, ppid: number, fields: Partial<ProcessInfo> = {}): ProcessInfo => ({
  pid,
  ppid,
  state: 'S',
  startTicks: 1_000,
  args: [`process-${pid}`],
  runMarker: undefined,
  cwd: '/work/covgate',
  ...fields,
});

describe('selectLeftovers', () => {
  const run = { marker: 'run-a', runnerPid: 100, tmpDir: '/tmp/covgate-test-run-a' };
  const table = [
    entry(1, 0, { startTicks: 1 }),
    entry(40, 1, { startTicks: 10, args: ['/usr/sbin/mariadbd'] }),
    entry(90, 1, { startTicks: 900, args: ['bash', '.ci/run'] }),
    entry(100, 90, { startTicks: 950, args: ['node', 'vitest.mjs', 'run'] }),
    entry(101, 100, { runMarker: 'run-a', args: ['node', 'vitest/dist/workers/forks.js'] }),
    entry(102, 100, { runMarker: 'run-a', args: ['esbuild', '--service=0.27.7'] }),
    entry(200, 1, { runMarker: 'run-a', args: ['node', '/tmp/app/covgate-server'] }),
    entry(201, 101, { args: ['node', 'dist/main.js'] }),
    entry(202, 201, { args: ['node', 'grandchild.js'] }),
    entry(203, 101, { state: 'Z', runMarker: 'run-a' }),
    entry(300, 1, { runMarker: 'run-b', args: ['node', 'another-run.js'] }),
    entry(400, 1, { runMarker: 'run-a', startTicks: 900 }),
    entry(500, 1, { cwd: '/tmp/covgate-test-run-a/covgate-tarballs-x/app (deleted)' }),
    entry(501, 1, { args: ['node', '/tmp/covgate-test-run-a/data/main.js'] }),
    entry(502, 1, { cwd: '/tmp/covgate-test-run-ab/covgate-tarballs-y/app' }),
    entry(503, 1, { cwd: '/tmp/covgate-test-run-a', startTicks: 900 }),
  ];
  const left = [200, 201, 202, 500, 501];

  it('finds orphans with the run marker or in its folder, and processes below a worker', () => {
    expect(selectLeftovers(table, run).map((process) => process.pid)).toEqual(left);
  });

  it('finds nothing when the run left nothing', () => {
    const clean = table.filter((process) => !left.includes(process.pid));
    expect(selectLeftovers(clean, run)).toEqual([]);
  });
});

/**
 * Starts `node -e "setInterval(...)"` the way `npx` left the server running: through a parent
 * that exits at once, in its own process group, with `marker` if given and in `cwd`. Resolves
 * with its pid.
 */
async function leak(options: { marker?: string; cwd?: string }): Promise<number> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  if (options.marker !== undefined) env[RUN_MARKER] = options.marker;
  const script = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
      cwd: ${JSON.stringify(options.cwd ?? process.cwd())},
      env: ${JSON.stringify(env)},
    });
    child.unref();
    console.log(child.pid);
  `;
  const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  parent.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  await new Promise((resolve) => parent.once('exit', resolve));
  return Number(stdout.trim());
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i += 1) await sleep(50);
  return !alive(pid);
}

describe.skipIf(!hasProcessTable())('the check at the end of the test run', () => {
  const saved = { marker: process.env[RUN_MARKER], tmpDir: process.env.TMPDIR };
  const leaked: number[] = [];

  afterEach(() => {
    process.env[RUN_MARKER] = saved.marker;
    process.env.TMPDIR = saved.tmpDir;
    process.exitCode = undefined;
    vi.restoreAllMocks();
    for (const pid of leaked.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended already: what the check is for.
      }
    }
  });

  it('fails the run naming the processes a test left running, and kills them', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const teardown = markTestRun();
    const runDir = process.env.TMPDIR as string;
    // One with the marker; one without (a test passed its own environment) in a folder the
    // test made in the run's temporary folder, as the tarball test's npx server was.
    const marked = await leak({ marker: process.env[RUN_MARKER] });
    const unmarked = await leak({ cwd: await mkdtemp(join(tmpdir(), 'covgate-app-')) });
    // And one of another run on the same machine, which must be left alone.
    const other = await leak({ marker: randomUUID() });
    leaked.push(marked, unmarked, other);
    // Orphans: adopted by init, or by a subreaper above the run.
    const parentOf = new Map([marked, unmarked].map((pid) => [pid, readProcess(pid)?.ppid]));
    expect([...parentOf.values()]).toEqual([expect.any(Number), expect.any(Number)]);
    expect([...parentOf.values()]).not.toContain(process.pid);
    expect(tmpdir()).toBe(runDir);

    await teardown();

    expect(process.exitCode).toBe(1);
    expect(errors).toHaveBeenCalledTimes(1);
    const code = 'setInterval(() => {}, 1000)';
    const [first, second] = [marked, unmarked].sort((a, b) => a - b) as [number, number];
    expect(String(errors.mock.calls[0]?.[0]).split('\n')).toEqual([
      'covgate: 2 processes the test run started still ran after its last test (killed now):',
      `  pid ${first} (parent ${parentOf.get(first)}): ${process.execPath} -e ${code}`,
      `  pid ${second} (parent ${parentOf.get(second)}): ${process.execPath} -e ${code}`,
      'Every test must stop what it starts and wait for it to exit (test/support/processes.ts).',
    ]);
    expect([await gone(marked), await gone(unmarked)]).toEqual([true, true]);
    expect(alive(other)).toBe(true);
    expect(existsSync(runDir)).toBe(false);
  });

  it('passes the run when nothing is left', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const teardown = markTestRun();
    const runDir = process.env.TMPDIR as string;
    expect(existsSync(runDir)).toBe(true);
    await teardown();
    expect(process.exitCode).toBeUndefined();
    expect(errors).not.toHaveBeenCalled();
    expect(existsSync(runDir)).toBe(false);
  });
});
