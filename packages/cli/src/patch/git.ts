import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** What a git command printed and how it ended; `missing` when git itself is not installed. */
export interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
  missing?: boolean;
}

/**
 * Runs `git args` in `cwd` and resolves with its outcome, never rejecting. After `timeoutMs`
 * (none by default) git is stopped and the outcome has no exit code.
 */
export function git(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 0,
): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      'git',
      [...args],
      {
        cwd,
        env,
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
        windowsHide: true,
        timeout: timeoutMs,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        const code = (error as NodeJS.ErrnoException).code;
        resolve({
          code: typeof code === 'number' ? code : null,
          stdout,
          stderr,
          ...(code === 'ENOENT' ? { missing: true } : {}),
        });
      },
    );
  });
}

/**
 * Runs `git args` in `cwd` and hands each line of its output to `onLine` as it comes, so a diff
 * of any size is read without holding it whole. Resolves with the exit code and stderr.
 */
export function gitLines(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void,
): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = spawn('git', [...args], { cwd, env, windowsHide: true });
    let stderr = '';
    let missing = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      missing = error.code === 'ENOENT';
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', onLine);
    let stdoutDone = false;
    let exit: number | null | undefined;
    const settle = () => {
      if (!stdoutDone || exit === undefined) return;
      resolve({ code: exit, stdout: '', stderr, ...(missing ? { missing: true } : {}) });
    };
    lines.on('close', () => {
      stdoutDone = true;
      settle();
    });
    child.on('close', (code) => {
      exit = code;
      settle();
    });
  });
}
