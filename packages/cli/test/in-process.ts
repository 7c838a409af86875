import { Readable } from 'node:stream';
import { main } from '../src/cli.js';
import type { Io } from '../src/io.js';

/** How an in-process `covgate` run ended: its exit code and what it printed. */
export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

const noRequest: typeof fetch = () => Promise.reject(new Error('no request expected'));

/**
 * Runs `covgate args` in-process in `cwd` with exactly `env`, its output captured and nothing
 * on stdin. Requests go to `fetch`; by default none may reach a service.
 */
export async function covgateIn(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  fetch: typeof globalThis.fetch = noRequest,
): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    env,
    cwd,
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([]),
    fetch,
  };
  const code = await main([...args], io);
  return { code, stdout, stderr };
}
