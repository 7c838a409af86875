import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess } from './processes.js';

/** Folder of the built reference server (`pnpm --filter @covgate/server build`). */
export const DIST = fileURLToPath(new URL('../../examples/server/dist/', import.meta.url));

/** Whether `dist/main.js` exists. */
export function isServerBuilt(): boolean {
  return existsSync(join(DIST, 'main.js'));
}

/**
 * A free TCP port on 127.0.0.1: listen on port 0, read the port, close. Needed when a
 * setting (the OAuth redirect URL) must name the port before the server starts.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port assigned');
  return address.port;
}

/** The built server running as a child process. */
export interface BuiltServer {
  /** The URL from its `covgate listening on <url>` log line. */
  url: string;
  /** Its process id (of the shell that became the server, with `descriptorLimit`). */
  pid: number;
  /** Everything written to stdout so far (access log JSON lines and audit lines). */
  stdout(): string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first stdout line matching `pattern`, waiting up to `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends `signal` and resolves with the exit code; rejects if it still runs 15 s later. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
  /** Kills it (SIGKILL) if it still runs and waits for its exit; for clean-up. */
  kill(): Promise<void>;
}

/**
 * Spawns `node dist/main.js` with exactly `env` and waits for its listening line, by default
 * up to 60 s (`listenTimeoutMs`: more where a loaded machine starts several processes). A
 * server that does not listen is killed. With `descriptorLimit`, a shell lowers the limit and
 * replaces itself with the server (same process, same group).
 */
export async function startBuiltServer(
  env: NodeJS.ProcessEnv,
  options: {
    listenTimeoutMs?: number;
    /** Open descriptors the server may have (`ulimit -n` in the shell that execs it). */
    descriptorLimit?: number;
  } = {},
): Promise<BuiltServer> {
  const main = join(DIST, 'main.js');
  const server =
    options.descriptorLimit === undefined
      ? startProcess(process.execPath, [main], { env })
      : startProcess(
          '/bin/sh',
          ['-c', `ulimit -n ${options.descriptorLimit} && exec "$0" "$@"`, process.execPath, main],
          { env },
        );
  let listening: RegExpExecArray;
  try {
    // Loading a built server takes 10 to 25 s on a loaded 2-core machine under Node 22 and 24,
    // whose module loader is about twice as slow as Node 20's here (package.json lookups, see
    // nodejs/node#60397); a hang still fails.
    listening = await server.waitForLine(/covgate listening on (http:\/\/[^"\s]+)/, {
      timeoutMs: options.listenTimeoutMs ?? 60_000,
      stream: 'stdout',
    });
  } catch (error) {
    await server.stop('SIGKILL').catch(() => {});
    throw error;
  }
  return {
    url: listening[1] as string,
    pid: server.child.pid as number,
    stdout: server.stdout,
    output: server.output,
    waitForLine: (pattern, timeoutMs = 5_000) =>
      server.waitForLine(pattern, { timeoutMs, stream: 'stdout' }),
    stop: async (signal) => (await server.stop(signal)).code,
    kill: async () => {
      await server.stop('SIGKILL');
    },
  };
}

/**
 * Starts `count` built servers with the same `env` side by side; if one does not start, kills
 * the others and rejects with its error.
 */
export async function startBuiltServers(
  count: number,
  env: NodeJS.ProcessEnv,
  options: { listenTimeoutMs?: number } = {},
): Promise<BuiltServer[]> {
  const results = await Promise.allSettled(
    Array.from({ length: count }, () => startBuiltServer(env, options)),
  );
  const failed = results.find((result) => result.status === 'rejected');
  const servers = results.flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  if (failed === undefined) return servers;
  await Promise.all(servers.map((server) => server.kill()));
  throw failed.reason;
}
