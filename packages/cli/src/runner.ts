import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { filterEnv, NEVER_FORWARDED_ENV_NAMES } from '@covgate/env-filter';
import { execa } from 'execa';
import { usageError } from './errors.js';

/**
 * covgate's own credentials: never passed to the test command, which runs code the
 * repository's authors (or a pull request) control.
 */
export const COVGATE_SECRET_ENV_NAMES: readonly string[] = [
  'COVGATE_TOKEN',
  'COVGATE_TOKEN_FILE',
  'COVGATE_SESSION',
];

/**
 * The environment of the test command: `filterEnv`'s allowlist plus the `--pass-env` names.
 *
 * @throws CliError (exit 2) when `--pass-env` names a variable that is never forwarded
 */
export function testCommandEnv(
  env: NodeJS.ProcessEnv,
  passEnv: readonly string[],
): Record<string, string> {
  const never = [...NEVER_FORWARDED_ENV_NAMES, ...COVGATE_SECRET_ENV_NAMES];
  for (const name of passEnv) {
    if (never.some((n) => n.toUpperCase() === name.toUpperCase())) {
      throw usageError(`--pass-env ${name}: this variable is never passed to the test command`);
    }
    if (name === '' || name.includes('='))
      throw usageError(`--pass-env ${JSON.stringify(name)}: not a variable name`);
  }
  return filterEnv(env, { allow: passEnv, deny: COVGATE_SECRET_ENV_NAMES });
}

/** Where the test command's standard output goes: ours, or our stderr when stdout is JSON. */
export type ChildStdout = 'stdout' | 'stderr';

/** The signals covgate passes on to the test command. */
export const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** A signal covgate passes on to the test command. */
export type ForwardedSignal = (typeof FORWARDED_SIGNALS)[number];

/** How long the test command may take to exit after a forwarded signal before it gets SIGKILL. */
export const KILL_GRACE_MS = 10_000;

/** How the test command ended. */
export type TestCommandEnd =
  /** It exited by itself with this code. */
  | { kind: 'exited'; code: number }
  /** A signal ended it that did not come through covgate (an OOM killer's SIGKILL, say). */
  | { kind: 'killed'; signal: string }
  /** covgate received `signal`, passed it on (or the terminal had), and waited for the end. */
  | {
      kind: 'interrupted';
      signal: ForwardedSignal;
      /** How the command ended after it: its exit code, or the signal that ended it. */
      child: { code: number } | { signal: string };
      /** The grace period the command outlived before covgate killed it with SIGKILL; null when it did not. */
      killedAfterMs: number | null;
    };

/** Where process signals come from (the process itself, or a test's emitter). */
export interface SignalSource {
  on(signal: ForwardedSignal, listener: (signal: ForwardedSignal) => void): unknown;
  off(signal: ForwardedSignal, listener: (signal: ForwardedSignal) => void): unknown;
}

/**
 * Whether covgate runs in the foreground process group of a terminal: then a Ctrl-C (SIGINT)
 * reached the whole group, the test command included, and must not be sent a second time.
 * On Linux it is read from `/proc/self/stat` (see {@link foregroundInStat}); elsewhere a
 * terminal on stdin is taken as the sign.
 */
export function inTerminalForeground(): boolean {
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return process.stdin.isTTY === true;
  }
  return foregroundInStat(stat);
}

/**
 * Whether a `/proc/<pid>/stat` line describes a process with a controlling terminal whose
 * foreground process group is its own (`tty_nr` not 0 and `tpgid` = `pgrp`).
 */
export function foregroundInStat(stat: string): boolean {
  // After "pid (comm) ", where comm may hold spaces and parentheses: state ppid pgrp session
  // tty_nr tpgid ...
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[4] !== undefined && fields[4] !== '0' && fields[2] === fields[5];
}

/**
 * Runs the test command with the given environment only, its output streamed through, and
 * resolves with how it ended.
 *
 * SIGINT and SIGTERM sent to covgate while it runs are passed on to the command once (a SIGINT
 * is not, when covgate is in a terminal's foreground process group: the terminal sent it to
 * the command already). covgate then waits for the command to exit, at most `graceMs`
 * (default {@link KILL_GRACE_MS}), after which it kills it with SIGKILL; later signals are
 * not passed on again.
 *
 * @throws CliError (exit 2) when the command cannot be started (not found, not executable)
 */
export async function runTestCommand(
  command: readonly string[],
  options: {
    env: Record<string, string>;
    cwd: string;
    stdout: ChildStdout;
    signals?: SignalSource;
    graceMs?: number;
    inForeground?: () => boolean;
  },
): Promise<TestCommandEnd> {
  const [file, ...args] = command;
  if (!file) throw usageError('no test command after --: covgate run [options] -- <command...>');
  const signals = options.signals ?? process;
  const inForeground = options.inForeground ?? inTerminalForeground;
  const subprocess = execa(file, args, {
    env: options.env,
    extendEnv: false,
    cwd: options.cwd,
    stdin: 'inherit',
    stdout: options.stdout === 'stdout' ? 'inherit' : 2,
    stderr: 'inherit',
    reject: false,
    // If covgate itself dies, the command goes too; a signal covgate handles below.
    cleanup: true,
    forceKillAfterDelay: false,
  });

  const graceMs = options.graceMs ?? KILL_GRACE_MS;
  let received: ForwardedSignal | undefined;
  let killedAfterMs: number | null = null;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const onSignal = (signal: ForwardedSignal) => {
    if (received) return;
    received = signal;
    if (signal !== 'SIGINT' || !inForeground()) subprocess.kill(signal);
    grace = setTimeout(() => {
      killedAfterMs = graceMs;
      subprocess.kill('SIGKILL');
    }, graceMs);
  };
  for (const signal of FORWARDED_SIGNALS) signals.on(signal, onSignal);
  let result: Awaited<typeof subprocess>;
  try {
    result = await subprocess;
  } finally {
    for (const signal of FORWARDED_SIGNALS) signals.off(signal, onSignal);
    clearTimeout(grace);
  }

  if (received && typeof result.exitCode === 'number')
    return {
      kind: 'interrupted',
      signal: received,
      child: { code: result.exitCode },
      killedAfterMs,
    };
  if (received && result.signal)
    return {
      kind: 'interrupted',
      signal: received,
      child: { signal: result.signal },
      killedAfterMs,
    };
  if (typeof result.exitCode === 'number') return { kind: 'exited', code: result.exitCode };
  if (result.signal) return { kind: 'killed', signal: result.signal };
  const code = (result.cause as NodeJS.ErrnoException | undefined)?.code;
  throw usageError(
    code === 'ENOENT'
      ? `the test command was not found: ${file} (is it on PATH? only allowlisted variables reach it)`
      : `the test command could not be started: ${file} (${code ?? result.shortMessage})`,
  );
}

/**
 * covgate's exit code for a test command that did not succeed: its own exit code, 128 + the
 * number of the signal that killed it, or 128 + the number of the signal covgate received.
 */
export function exitCodeOfEnd(end: TestCommandEnd): number {
  if (end.kind === 'exited') return end.code;
  return 128 + signalNumber(end.signal);
}

/** Whether the test command succeeded: exited 0, and covgate was not interrupted. */
export function succeeded(end: TestCommandEnd): boolean {
  return end.kind === 'exited' && end.code === 0;
}

/** What happened, for `covgate: <this>; nothing was posted`. */
export function describeEnd(end: TestCommandEnd): string {
  if (end.kind === 'exited') return `the test command exited with code ${end.code}`;
  if (end.kind === 'killed') return `the test command was killed by ${end.signal}`;
  const after =
    end.killedAfterMs !== null
      ? `the test command was still running ${end.killedAfterMs / 1000} s later and was killed with SIGKILL`
      : 'code' in end.child
        ? `the test command exited with code ${end.child.code}`
        : `the test command was ended by ${end.child.signal}`;
  return `interrupted by ${end.signal}; ${after}`;
}

function signalNumber(signal: string): number {
  return constants.signals[signal as keyof typeof constants.signals] ?? 0;
}
