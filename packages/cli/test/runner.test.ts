import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { itReturns } from '@covgate/test-support/value-table';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  describeEnd,
  exitCodeOfEnd,
  foregroundInStat,
  runTestCommand,
  type SignalSource,
  succeeded,
  type TestCommandEnd,
} from '../src/runner.js';
import { alive, waitForFile } from './process-probes.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'covgate-cli-runner-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// A test command that writes its pid, records every SIGINT and SIGTERM it gets, and 300 ms
// after the first one writes them to its marker file and exits with EXIT_CODE. With
// IGNORE=1 it never exits by itself.
const CHILD = `
const fs = require('node:fs');
const [pidFile, marker] = process.argv.slice(1);
const got = [];
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => {
  got.push(s);
  fs.writeFileSync(marker, got.join(','));
  if (got.length === 1 && !process.env.IGNORE) setTimeout(() => process.exit(Number(process.env.EXIT_CODE ?? 0)), 300);
});
fs.writeFileSync(pidFile, String(process.pid));
setInterval(() => {}, 1000);
`;

/** A signal source the test fires by hand, as if covgate had received the signal. */
function fakeSignals(): SignalSource & EventEmitter {
  return new EventEmitter() as SignalSource & EventEmitter;
}

let runs = 0;
function start(
  options: { env?: Record<string, string>; inForeground?: boolean; graceMs?: number } = {},
) {
  const run = ++runs;
  const pidFile = join(dir, `pid-${run}`);
  const marker = join(dir, `marker-${run}`);
  const signals = fakeSignals();
  const ended = runTestCommand([process.execPath, '-e', CHILD, pidFile, marker], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    cwd: dir,
    stdout: 'stderr',
    signals,
    inForeground: () => options.inForeground ?? false,
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
  });
  return { ended, signals, marker, pid: async () => Number(await waitForFile(pidFile, 10_000)) };
}

describe('signals during covgate run', () => {
  it('passes SIGTERM on once, waits for the command to exit, and exits 143', async () => {
    const child = start({ env: { EXIT_CODE: '3' } });
    const pid = await child.pid();
    child.signals.emit('SIGTERM', 'SIGTERM');
    // A second signal while waiting is not passed on again.
    child.signals.emit('SIGINT', 'SIGINT');
    const end = await child.ended;
    expect(end).toEqual({
      kind: 'interrupted',
      signal: 'SIGTERM',
      child: { code: 3 },
      killedAfterMs: null,
    });
    expect(await readFile(child.marker, 'utf8')).toBe('SIGTERM');
    expect(alive(pid)).toBe(false);
    expect(exitCodeOfEnd(end)).toBe(143);
    expect(succeeded(end)).toBe(false);
    expect(describeEnd(end)).toBe('interrupted by SIGTERM; the test command exited with code 3');
  });

  it('passes SIGINT on when covgate is not in a terminal foreground group, and exits 130 even if the command exits 0', async () => {
    const child = start();
    await child.pid();
    child.signals.emit('SIGINT', 'SIGINT');
    const end = await child.ended;
    expect(end).toEqual({
      kind: 'interrupted',
      signal: 'SIGINT',
      child: { code: 0 },
      killedAfterMs: null,
    });
    expect(await readFile(child.marker, 'utf8')).toBe('SIGINT');
    expect(exitCodeOfEnd(end)).toBe(130);
  });

  it("does not send a terminal's Ctrl-C a second time: the command got it from the terminal", async () => {
    const child = start({ inForeground: true });
    const pid = await child.pid();
    // The terminal sends SIGINT to the whole foreground group: covgate and the command.
    process.kill(pid, 'SIGINT');
    child.signals.emit('SIGINT', 'SIGINT');
    const end = await child.ended;
    expect(end).toMatchObject({ kind: 'interrupted', signal: 'SIGINT', child: { code: 0 } });
    expect(await readFile(child.marker, 'utf8')).toBe('SIGINT');
  });

  it('kills a command that outlives the grace period with SIGKILL, and says so', async () => {
    const child = start({ env: { IGNORE: '1' }, graceMs: 400 });
    const pid = await child.pid();
    child.signals.emit('SIGTERM', 'SIGTERM');
    const end = await child.ended;
    expect(end).toEqual({
      kind: 'interrupted',
      signal: 'SIGTERM',
      child: { signal: 'SIGKILL' },
      killedAfterMs: 400,
    });
    expect(alive(pid)).toBe(false);
    expect(exitCodeOfEnd(end)).toBe(143);
    expect(describeEnd(end)).toBe(
      'interrupted by SIGTERM; the test command was still running 0.4 s later and was killed with SIGKILL',
    );
  });

  it('names the signal that killed the command on its own, and exits 128 + its number', async () => {
    const end = await runTestCommand(
      [process.execPath, '-e', "process.kill(process.pid, 'SIGKILL')"],
      { env: {}, cwd: dir, stdout: 'stderr', signals: fakeSignals() },
    );
    expect(end).toEqual({ kind: 'killed', signal: 'SIGKILL' });
    expect(describeEnd(end)).toBe('the test command was killed by SIGKILL');
    expect(exitCodeOfEnd(end)).toBe(137);
  });

  it('passes an exit code on as it is, and stops listening for signals once the command ended', async () => {
    const signals = fakeSignals();
    const end = await runTestCommand([process.execPath, '-e', 'process.exitCode = 7'], {
      env: {},
      cwd: dir,
      stdout: 'stderr',
      signals,
    });
    expect(end).toEqual({ kind: 'exited', code: 7 });
    expect(exitCodeOfEnd(end)).toBe(7);
    expect(describeEnd(end)).toBe('the test command exited with code 7');
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
    const ok: TestCommandEnd = { kind: 'exited', code: 0 };
    expect(succeeded(ok)).toBe(true);
  });
});

describe('the terminal foreground check', () => {
  // Real /proc/<pid>/stat lines: a shell's job in the terminal's foreground group, the same
  // job sent to the background, and a process without a controlling terminal (CI).
  itReturns(foregroundInStat, '%s -> %s', [
    ['4242 (node) S 4100 4242 4100 34816 4242 4194304 1 0 0 0', true],
    ['4242 (node) S 4100 4242 4100 34816 4300 4194304 1 0 0 0', false],
    ['4242 (my (odd) name) S 4100 4242 4100 34816 4242 4194304 1 0', true],
    ['4242 (node) S 1 4242 4242 0 -1 4194560 1 0 0 0', false],
  ]);
});
