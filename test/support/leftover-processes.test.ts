import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
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
  ...fields,
});

describe('selectLeftovers', () => {
  const run = { marker: 'run-a', runnerPid: 100 };
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
  ];

  it('finds orphans with the run marker and processes below a worker, nothing else', () => {
    expect(selectLeftovers(table, run).map((process) => process.pid)).toEqual([200, 201, 202]);
  });

  it('finds nothing when the run left nothing', () => {
    const clean = table.filter((process) => ![200, 201, 202].includes(process.pid));
    expect(selectLeftovers(clean, run)).toEqual([]);
  });
});

/**
 * Starts `node -e "setInterval(...)"` the way `npx` left the server running: through a parent
 * that exits at once, in its own process group, with `marker`. Resolves with its pid.
 */
async function leak(marker: string): Promise<number> {
  const script = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH, ${RUN_MARKER}: ${JSON.stringify(marker)} },
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
  const savedMarker = process.env[RUN_MARKER];
  const leaked: number[] = [];

  afterEach(() => {
    process.env[RUN_MARKER] = savedMarker;
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

  it('fails the run naming a process a test left running, and kills it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const teardown = markTestRun();
    const marker = process.env[RUN_MARKER] as string;
    const pid = await leak(marker);
    leaked.push(pid);
    // And one of another run on the same machine, which must be left alone.
    const other = await leak(randomUUID());
    leaked.push(other);
    // Orphaned: adopted by init, or by a subreaper above the run.
    const parent = readProcess(pid)?.ppid;
    expect(parent).toEqual(expect.any(Number));
    expect(parent).not.toBe(process.pid);

    await teardown();

    expect(process.exitCode).toBe(1);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]?.[0]).split('\n')).toEqual([
      'covgate: 1 process the test run started still ran after its last test (killed now):',
      `  pid ${pid} (parent ${parent}): ${process.execPath} -e setInterval(() => {}, 1000)`,
      'Every test must stop what it starts and wait for it to exit (test/support/processes.ts).',
    ]);
    expect(await gone(pid)).toBe(true);
    expect(alive(other)).toBe(true);
  });

  it('passes the run when nothing is left', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const teardown = markTestRun();
    await teardown();
    expect(process.exitCode).toBeUndefined();
    expect(errors).not.toHaveBeenCalled();
  });
});
