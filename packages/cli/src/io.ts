import pc from 'picocolors';
import type { Paint } from './verdict.js';

/** A stream covgate writes to. */
export interface Output {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** Everything a command touches outside itself, injected so tests run it in-process. */
export interface Io {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: Output;
  stderr: Output;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** The fetch of the API client (tests may count or fail requests). */
  fetch?: typeof fetch;
  /** Waits; injected so polling tests need no real time. */
  sleep?: (ms: number) => Promise<void>;
}

/** The process's own streams and environment; see {@link quietOnBrokenPipe}. */
export function processIo(): Io {
  quietOnBrokenPipe(process.stdout);
  quietOnBrokenPipe(process.stderr);
  return {
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  };
}

/**
 * Drops what is written to `stream` once its reader has gone (`covgate run --help | head -3`:
 * head exits after its lines), instead of dying of the unhandled `EPIPE` with a stack trace.
 * The command goes on and exits with its own code, so a pipe never hides a failed gate.
 */
export function quietOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}

/**
 * Colour only on a terminal and never with `NO_COLOR` set (or `TERM=dumb`), as clig.dev asks;
 * `FORCE_COLOR` (not `0`) forces it.
 */
export function colourEnabled(stream: Output, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Colour functions for a stream. */
export function paintFor(stream: Output, env: NodeJS.ProcessEnv): Paint {
  const colours = pc.createColors(colourEnabled(stream, env));
  return { green: colours.green, yellow: colours.yellow, red: colours.red, bold: colours.bold };
}
