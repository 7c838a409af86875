import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { RUN_MARKER } from './process-table.js';

// Every process a test starts goes through here. Each runs in its own process group, so that
// stopping it reaches what it started too (`npx` runs the bin as its child, `bash` its
// commands), and a stop waits until the whole group is gone or fails the test after a bound.

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A started process and what it printed so far. */
export interface OwnedProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout so far. */
  stdout(): string;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Everything it wrote to stdout and stderr so far, in arrival order. */
  output(): string;
  /** Settles when it exits; rejects when it could not be started. */
  exited: Promise<Exit>;
  /** Resolves once stdout and stderr ended, or after a second (something it started holds them). */
  allOutput(): Promise<void>;
  /**
   * Resolves with the first complete line on `stream` (both by default) that matches
   * `pattern`; rejects when it exits first or after `timeoutMs` (5 s by default).
   */
  waitForLine(
    pattern: RegExp,
    options?: { timeoutMs?: number; stream?: 'stdout' | 'stderr' | 'both' },
  ): Promise<RegExpExecArray>;
  /**
   * Sends `signal` (SIGTERM by default) to its process group and resolves with its exit once
   * the group is empty. After `timeoutMs` (15 s by default: the reference server allows itself
   * 10 s to drain) it kills the group and rejects.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

/** Options of {@link startProcess}. */
export interface StartOptions {
  cwd?: string;
  /** The exact environment, to which the test run's marker is added. */
  env: NodeJS.ProcessEnv;
  /** `pipe` to write to `child.stdin`; /dev/null by default. */
  stdin?: 'pipe' | 'ignore';
}

const running = new Set<ChildProcess>();

/**
 * Starts `command` in its own process group with `env` and the run's marker, stdout and stderr
 * captured. The caller must `stop()` it (or wait for `exited` and then `stop()` it, which also
 * ends what it left in its group).
 */
export function startProcess(command: string, args: string[], options: StartOptions): OwnedProcess {
  const marker = process.env[RUN_MARKER];
  const env = marker === undefined ? options.env : { ...options.env, [RUN_MARKER]: marker };
  // stdin is /dev/null unless asked for: nothing waits for input that never comes, and bash
  // does not take a socket on stdin for a remote shell's (which makes it read ~/.bashrc).
  const child = spawn(command, args, {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  const label = [command, ...args].join(' ');
  const chunks: { stdout: string[]; stderr: string[]; both: string[] } = {
    stdout: [],
    stderr: [],
    both: [],
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    chunks.stdout.push(String(chunk));
    chunks.both.push(String(chunk));
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    chunks.stderr.push(String(chunk));
    chunks.both.push(String(chunk));
  });
  const output = () => chunks.both.join('');
  if (child.pid !== undefined) {
    running.add(child);
    endWithTheWorker();
  }
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      if (child.pid === undefined) reject(new Error(`${label} did not start: ${error.message}`));
    });
  });
  exited.catch(() => {});
  // 'exit' may come before the last output: 'close' comes once stdout and stderr ended too
  // (later, or never, while a process it started holds them).
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const allOutput = () => within(closed, 1_000);

  const waitForLine: OwnedProcess['waitForLine'] = (pattern, { timeoutMs = 5_000, stream } = {}) =>
    new Promise((resolve, reject) => {
      const streams = stream === undefined || stream === 'both' ? ['stdout', 'stderr'] : [stream];
      const find = () => {
        for (const name of streams as ('stdout' | 'stderr')[]) {
          // Complete lines only: a chunk may end inside the URL a pattern captures.
          const lines = chunks[name].join('').split('\n').slice(0, -1);
          for (const line of lines) {
            const match = pattern.exec(line);
            if (match) return match;
          }
        }
        return undefined;
      };
      const onData = () => {
        const match = find();
        if (match) finish(() => resolve(match));
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new Error(
                `no line matching ${pattern} within ${timeoutMs} ms from ${label}:\n${output()}`,
              ),
            ),
          ),
        timeoutMs,
      );
      let settled = false;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        settle();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      exited.then(
        async (exit) => {
          await allOutput();
          onData();
          finish(() =>
            reject(
              new Error(
                `${label} exited ${describeExit(exit)} before a line matching ${pattern}:\n${output()}`,
              ),
            ),
          );
        },
        (error: unknown) => finish(() => reject(error)),
      );
      onData();
    });

  const stop: OwnedProcess['stop'] = async (signal = 'SIGTERM', timeoutMs = 15_000) => {
    // Not running: never started, or its group was seen empty (its id may be reused since).
    if (!running.has(child)) return exited;
    const pid = child.pid as number;
    signalGroup(pid, signal);
    const started = performance.now();
    const exit = await within(exited, timeoutMs);
    const gone =
      exit !== undefined && (await groupGone(pid, timeoutMs - (performance.now() - started)));
    if (!gone) {
      signalGroup(pid, 'SIGKILL');
      await within(exited, 5_000);
      running.delete(child);
      throw new Error(
        `${label} (process group ${pid}) was still running ${timeoutMs} ms after ${signal}; killed it:\n${output()}`,
      );
    }
    running.delete(child);
    await allOutput();
    return exited;
  };

  return {
    child,
    allOutput,
    stdout: () => chunks.stdout.join(''),
    stderr: () => chunks.stderr.join(''),
    output,
    exited,
    waitForLine,
    stop,
  };
}

/** What {@link run} returns: the exit code (-1 when a signal ended it) and the output. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end (within `timeoutMs`, 240 s by default) and resolves with its exit
 * code and output. Rejects, having killed them, when it runs longer or leaves processes behind.
 */
export async function run(
  command: string,
  args: string[],
  options: StartOptions & { timeoutMs?: number },
): Promise<RunResult> {
  const started = startProcess(command, args, options);
  const timeoutMs = options.timeoutMs ?? 240_000;
  const exit = await within(started.exited, timeoutMs);
  if (exit === undefined) {
    await started.stop('SIGKILL', 5_000).catch(() => {});
    throw new Error(
      `${[command, ...args].join(' ')} did not finish within ${timeoutMs} ms; killed it:\n${started.output()}`,
    );
  }
  const pid = started.child.pid as number;
  if (!(await groupGone(pid, 2_000))) {
    await started.stop('SIGKILL', 5_000).catch(() => {});
    throw new Error(
      `${[command, ...args].join(' ')} exited but left processes running in its group; killed them:\n${started.output()}`,
    );
  }
  running.delete(started.child);
  await started.allOutput();
  return { code: exit.code ?? -1, stdout: started.stdout(), stderr: started.stderr() };
}

/** A process listening on the URL it printed. */
export interface Started extends OwnedProcess {
  url: string;
}

/**
 * Starts `node <args>` and resolves with the first URL it prints after `listening on`
 * (covgate's own servers say `covgate listening on`), or kills it and rejects with its output.
 */
export async function startListening(
  args: string[],
  options: StartOptions & { timeoutMs?: number },
): Promise<Started> {
  const started = startProcess(process.execPath, args, options);
  try {
    // Loading a built server takes 10 to 25 s on a loaded 2-core machine under Node 22 and 24,
    // whose module loader is about twice as slow as Node 20's here; a hang still fails.
    const line = await started.waitForLine(/listening on (http:\/\/[^"\s]+)/, {
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    return { ...started, url: line[1] as string };
  } catch (error) {
    await started.stop('SIGKILL', 5_000).catch(() => {});
    throw error;
  }
}

/** Stops a started process (SIGTERM) and waits until it and its group are gone. */
export async function stop(started: OwnedProcess | undefined): Promise<void> {
  await started?.stop('SIGTERM');
}

/** Resolves with what `promise` resolves to, or undefined after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function describeExit(exit: Exit): string {
  return exit.signal ? `on ${exit.signal}` : `with code ${exit.code}`;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is empty already.
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Resolves true once no process of group `pid` is left, false after `timeoutMs`. */
async function groupGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (groupAlive(pid)) {
    if (performance.now() >= deadline) return false;
    await sleep(25);
  }
  return true;
}

let hooked = false;

/**
 * Vitest ends a worker with SIGTERM (Ctrl-C sends SIGINT): a test that timed out before its
 * clean-up ran would otherwise leave its process groups, which no longer share the worker's
 * group, running. They are killed, then the signal ends the worker as it would have.
 */
function endWithTheWorker(): void {
  if (hooked) return;
  hooked = true;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      for (const child of running) signalGroup(child.pid as number, 'SIGKILL');
      process.kill(process.pid, signal);
    });
  }
}
