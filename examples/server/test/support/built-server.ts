import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of the built reference server (`pnpm --filter @covgate/server build`). */
export const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

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
  /** Everything written to stdout so far (access log JSON lines and audit lines). */
  stdout(): string;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first stdout line matching `pattern`, waiting up to `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
  /** Kills it if it still runs; for clean-up after a failure. */
  kill(): void;
}

/** Spawns `node dist/main.js` with exactly `env` and waits for its listening line. */
export async function startBuiltServer(env: NodeJS.ProcessEnv): Promise<BuiltServer> {
  const child: ChildProcess = spawn(process.execPath, [join(DIST, 'main.js')], { env });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += String(chunk);
  });

  const waitForLine = (pattern: RegExp, timeoutMs = 5_000): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        for (const line of stdout.split('\n')) {
          const match = pattern.exec(line);
          if (match) {
            resolve(match);
            return true;
          }
        }
        return false;
      };
      if (check()) return;
      if (child.exitCode !== null) {
        reject(new Error(`server exited ${child.exitCode} before ${pattern}: ${stdout}${stderr}`));
        return;
      }
      const onData = () => {
        if (check()) done();
      };
      const onExit = (code: number | null) => {
        done();
        reject(new Error(`server exited ${code} before ${pattern}: ${stdout}${stderr}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms: ${stdout}${stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.off('exit', onExit);
      };
      child.stdout?.on('data', onData);
      child.on('exit', onExit);
    });

  // Loading a built server takes 10 to 25 s on a loaded 2-core machine under Node 22 and 24,
  // whose module loader is about twice as slow as Node 20's here (package.json lookups, see
  // nodejs/node#60397); a hang still fails.
  const listening = await waitForLine(/covgate listening on (http:\/\/[^"\s]+)/, 60_000);
  return {
    url: listening[1] as string,
    stdout: () => stdout,
    output: () => `${stdout}${stderr}`,
    waitForLine,
    stop(signal) {
      child.kill(signal);
      return exited;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
