import { type ChildProcess, spawn } from 'node:child_process';

/** A started process and what it printed so far. */
export interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
}

/**
 * Starts `node <args>` and resolves with the first URL it prints after `listening on`
 * (covgate's own servers say `covgate listening on`), or rejects with its output.
 */
export function startListening(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Started> {
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env });
  const chunks: string[] = [];
  const output = () => chunks.join('');
  return new Promise((resolve, reject) => {
    // Loading a built server takes 10 to 25 s on a loaded 2-core machine under Node 22 and 24,
    // whose module loader is about twice as slow as Node 20's here; a hang still fails.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not start: ${output()}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      chunks.push(String(chunk));
      const match = /listening on (http:\/\/[^"\s]+)/.exec(output());
      if (match) {
        clearTimeout(timer);
        resolve({ child, output, url: match[1] as string });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited ${code}: ${output()}`));
    });
  });
}

/** Runs a command to its end and resolves with its exit code and output. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Stops a started process and waits for it to exit. */
export async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null) return;
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await exited;
}
