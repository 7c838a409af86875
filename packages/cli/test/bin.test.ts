import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess } from '../../../test/support/processes.js';

// The built `covgate` bin as a shell pipeline runs it: the process's own streams.
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const built = existsSync(bin);
if (!built) console.warn('[covgate] bin tests SKIPPED: run `pnpm build` first (`pnpm test` does)');

describe.skipIf(!built && process.env.CI !== '1')('the covgate bin', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'covgate-bin-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /**
   * Starts the bin with the read end of `closed` shut before it writes anything (as
   * `covgate run --help | head -3` does once head has its lines), and resolves with its exit
   * and what it wrote to the other stream.
   */
  async function withClosedReader(args: string[], closed: 'stdout' | 'stderr') {
    const started = startProcess(process.execPath, [bin, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, NO_COLOR: '1' },
    });
    started.child[closed]?.destroy();
    const exit = await started.exited;
    await started.stop();
    return { ...exit, stdout: started.stdout(), stderr: started.stderr() };
  }

  it('exits quietly with its own code when the reader of stdout goes away (covgate run --help | head -3)', async () => {
    expect(await withClosedReader(['run', '--help'], 'stdout')).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: '',
    });
  });

  it('exits quietly with its own code when the reader of stderr goes away', async () => {
    expect(
      await withClosedReader(['report', '--report', 'missing.info', '--dry-run'], 'stderr'),
    ).toEqual({ code: 2, signal: null, stdout: '', stderr: '' });
  });
});
