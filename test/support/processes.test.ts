import { describe, expect, it } from 'vitest';
import { RUN_MARKER } from './process-table.js';
import { run, startProcess } from './processes.js';

const env = () => ({ PATH: process.env.PATH });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A shell that starts `node -e <forever>` and prints its pid, as `npx` starts a bin. */
const shellWithChild = `node -e 'setInterval(() => {}, 1000)' & echo "child $!"; wait`;

describe('startProcess and stop', () => {
  it('stops what the process started too: its whole process group', async () => {
    const shell = startProcess('bash', ['-c', shellWithChild], { env: env() });
    const [, child] = await shell.waitForLine(/^child (\d+)$/);
    expect(alive(Number(child))).toBe(true);

    const exit = await shell.stop('SIGTERM');

    expect(exit).toEqual({ code: null, signal: 'SIGTERM' });
    expect(alive(Number(child))).toBe(false);
  });

  it('fails, after killing it, when the process outlives the bound', async () => {
    const stubborn = startProcess(
      process.execPath,
      ['-e', "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"],
      { env: env() },
    );
    await stubborn.waitForLine(/^ready$/);
    const pid = stubborn.child.pid as number;

    await expect(stubborn.stop('SIGTERM', 500)).rejects.toThrow(
      `${process.execPath} -e process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000) (process group ${pid}) was still running 500 ms after SIGTERM; killed it:\nready\n`,
    );
    expect(await stubborn.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });

  it('gives the process the run marker beside the environment it is given', async () => {
    const result = await run(process.execPath, ['-e', 'console.log(JSON.stringify(process.env))'], {
      env: { PATH: process.env.PATH, ONLY: '1' },
    });
    expect(JSON.parse(result.stdout)).toEqual({
      PATH: process.env.PATH,
      ONLY: '1',
      [RUN_MARKER]: process.env[RUN_MARKER],
    });
    expect(process.env[RUN_MARKER]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('run', () => {
  it('resolves with the exit code and output', async () => {
    const result = await run('bash', ['-c', 'echo out; echo err >&2; exit 3'], { env: env() });
    expect(result).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  it('fails, after killing them, when the command leaves processes behind', async () => {
    const command = `node -e 'setInterval(() => {}, 1000)' & echo "child $!"`;
    let message = '';
    await run('bash', ['-c', command], { env: env() }).catch((error: Error) => {
      message = error.message;
    });
    const child = Number(/child (\d+)/.exec(message)?.[1]);
    expect(message).toBe(
      `bash -c ${command} exited but left processes running in its group; killed them:\nchild ${child}\n`,
    );
    expect(alive(child)).toBe(false);
  });

  it('fails, after killing it, when the command runs past its bound', async () => {
    const started = performance.now();
    await expect(
      run('bash', ['-c', shellWithChild], { env: env(), timeoutMs: 300 }),
    ).rejects.toThrow(/^bash -c .* did not finish within 300 ms; killed it:\nchild \d+\n$/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
